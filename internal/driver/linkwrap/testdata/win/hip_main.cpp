// Host main of the HIP programs: launches kern_a through hip_a.hip's
// launch (so that a host link pulls hip_a's object out of a library),
// which the stub runtime logs.
// With -DWITH_DLL it also launches hip_dll.hip's kernel through the DLL.
void launch(int *p);
#ifdef WITH_DLL
extern "C" __declspec(dllimport) void dll_launch(int *p);
#endif
int main() {
  int x = 0;
  launch(&x);
#ifdef WITH_DLL
  dll_launch(&x);
#endif
  return 0;
}
