#include <vector>
#include <algorithm>
#include <string>
#include <map>
#include <cmath>
struct Shape { virtual double area() const = 0; virtual ~Shape() {} };
struct Circle : Shape { double r; Circle(double r):r(r){} double area() const override { return 3.14*r*r; } };
struct Sq : Shape { double s; Sq(double s):s(s){} double area() const override { return s*s; } };
double total(const std::vector<Shape*>& v) { double t = 0; for (auto* s : v) t += s->area(); return t; }
int count_words(const std::string& s) { std::map<std::string,int> m; std::string w; for (char c: s) { if (c==' ') { m[w]++; w.clear(); } else w += c; } return (int)m.size(); }
void sortv(std::vector<int>& v) { std::sort(v.begin(), v.end()); }
float f(float x) { return std::sqrt(x) + std::sin(x); }
