/* replay_main.c: main() for a fuzz target built without libFuzzer: runs every file
 * of the given corpus directories (or the given files) through the target once, so
 * the corpus is a regression test in every build, gcc and sanitizer builds included.
 * Exits 1 if it found no input at all (a corpus that went missing must not pass). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

#pragma weak LLVMFuzzerInitialize

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open '%s'\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0, got;
    unsigned char *data = malloc(cap);
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *grown = realloc(data, cap *= 2);
            if (!grown) free(data);
            data = grown;
        }
    }
    int bad = !data || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read '%s'\n", path);
        free(data);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 1;
}

int main(int argc, char **argv)
{
    long inputs = 0;
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "replay: no such corpus '%s'\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            if (run_file(argv[i]) < 0) return 1;
            inputs++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        if (!d) {
            fprintf(stderr, "replay: cannot list '%s'\n", argv[i]);
            return 1;
        }
        while ((e = readdir(d))) {
            char path[4096];
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (run_file(path) < 0) {
                closedir(d);
                return 1;
            }
            inputs++;
        }
        closedir(d);
    }
    fprintf(stderr, "replay: %ld inputs, no finding\n", inputs);
    return inputs > 0 ? 0 : 1;
}
