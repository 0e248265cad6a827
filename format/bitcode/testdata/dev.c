int device_answer(void) { return 42; }
