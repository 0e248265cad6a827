// Host main: the kernels are registered by the wrapper's constructor before
// main runs; nothing is launched.
int main() { return 0; }
