#include <cstddef>
namespace ns {
template <typename T> struct Box { T value; int tag[3]; };
enum Color { Red, Green = 5 };
static Box<double> box{1.5, {1, 2, 3}};
}
extern "C" int use(int n) {
  ns::Box<int> b{n, {0, 1, 2}};
  for (int i = 0; i < 3; ++i) b.tag[i] += ns::Green;
  return b.value + b.tag[2] + (int)ns::box.value;
}
int main(int argc, char **) { return use(argc); }
