// A member holding only a declare target global (ar_kernel.c -DTABLE).
#pragma omp declare target
int ar_table[4] = {1, 2, 3, 4};
#pragma omp end declare target
