// ARC on arm64: the retain of make()'s result is a call inside an operand
// bundle (clang.arc.attachedcall).
@class NSObject;
id make(void);
void use(id);
void k(void) { id x = make(); use(x); }
void unused(void) {}
