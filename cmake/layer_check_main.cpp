// The layer check's program (cmake/engine.cmake): one engine library linked whole, alone. It does
// nothing; that it links at all is the check that the library needs nothing above its role.
int main() { return 0; }
