__attribute__((device)) int g = 3;
__attribute__((device)) int f(int x){return x+g;}
int main(){return 0;}
