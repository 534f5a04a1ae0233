/* Plain C translation unit of the multi_* program. */
int c_expected(int i);
int c_expected(int i) { return i * 2 + 7; }
