/* lsan_probe.c: leaks on purpose, for tests/sanitizers/test_lsan.sh, under ASan.
 *   lsan_probe ours          leaks a block q4cts-style code allocated itself
 *   lsan_probe llvm LIBLLVM  leaks a block allocated inside LLVM: the string
 *                            LLVMGetDefaultTargetTriple strdups, never disposed. As in
 *                            lavapipe's leak, the stack LeakSanitizer records (frame
 *                            pointers: LLVM has none) ends in LLVM, with no frame of ours
 * Exit 0; LeakSanitizer's report at exit (and its exit status) is what the test reads. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;   /* overwritten below: the blocks become unreachable */

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "ours")) {
        sink = malloc(4096);
        memset(sink, 1, 4096);
    } else if (argc == 3 && !strcmp(argv[1], "llvm")) {
        void *lib = dlopen(argv[2], RTLD_NOW);
        if (!lib) {
            fprintf(stderr, "lsan_probe: %s\n", dlerror());
            return 2;
        }
        char *(*triple)(void) = (char *(*)(void))dlsym(lib, "LLVMGetDefaultTargetTriple");
        if (!triple) {
            fprintf(stderr, "lsan_probe: %s has no LLVMGetDefaultTargetTriple\n", argv[2]);
            return 2;
        }
        sink = triple();
    } else {
        fprintf(stderr, "usage: lsan_probe ours | lsan_probe llvm LIBLLVM\n");
        return 2;
    }
    sink = NULL;
    return 0;
}
