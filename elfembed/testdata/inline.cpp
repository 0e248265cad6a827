// C++ source whose objects have COMDAT groups (ELF SHT_GROUP, COFF
// associative sections) and several text sections.
inline int twice(int x) { return 2 * x; }
template <typename T> T sq(T v) { return v * v; }
int use(int a) { return twice(a) + sq(a) + (int)sq<long>(a); }
