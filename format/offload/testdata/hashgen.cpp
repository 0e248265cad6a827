// Prints DenseMapInfo<StringRef>::getHashValue for hex-encoded keys read
// one per line from stdin, as "<hex> <hash32 hex>". Build:
//   clang++ -std=c++17 -I/usr/lib/llvm-22/include hashgen.cpp -L/usr/lib/llvm-22/lib -lLLVM-22
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include <cstdio>
#include <iostream>
#include <string>

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::string key;
    for (size_t i = 0; i + 1 < line.size(); i += 2)
      key.push_back(static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16)));
    unsigned h = llvm::DenseMapInfo<llvm::StringRef>::getHashValue(key);
    std::printf("%s %08x\n", line.c_str(), h);
  }
}
