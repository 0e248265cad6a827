int puts(const char *);
int counter = 3;
static const char msg[] = "hello offload";
static int helper(int x) { return x * counter; }
int main(void) { puts(msg); return helper(14) == 42 ? 0 : 1; }
