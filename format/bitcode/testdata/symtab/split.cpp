// Two modules in one file with one irsymtab: ThinLTO with a split LTO unit.
struct A { virtual int f(); virtual ~A(); };
int A::f() { return 1; }
A::~A() {}
int use(A *a) { return a->f(); }
static int anon_helper() { return 4; }
int g = anon_helper();
