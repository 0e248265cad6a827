int helper(int x){return x*3;}
int __omp_offloading_10_abc_main_l5(int*p){return helper(*p);}
