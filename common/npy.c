/* npy.c: NumPy .npy (format 1.0) for 2-D float32, so a learner can load a
 * run's matrices with numpy.load and check them another way. */
#include <stdlib.h>
#include <string.h>

#include "host.h"

static const char magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};

int gemm_write_npy(const char *path, const float *x, int rows, int cols) {
    char header[128];
    int len = snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }",
                       rows, cols);
    /* magic (8) + header length (2) + header, padded with spaces to a
     * multiple of 64 and ended by a newline. */
    int total = (10 + len + 1 + 63) / 64 * 64;
    memset(header + len, ' ', (size_t)(total - 10 - len - 1));
    header[total - 10 - 1] = '\n';
    unsigned short hlen = (unsigned short)(total - 10);
    unsigned char hlen_le[2] = {(unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};

    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(magic, 1, 8, f) == 8 && fwrite(hlen_le, 1, 2, f) == 2 &&
             fwrite(header, 1, hlen, f) == hlen &&
             fwrite(x, sizeof *x, (size_t)rows * cols, f) == (size_t)rows * cols;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

float *gemm_read_npy(const char *path, int *rows, int *cols) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char head[10], header[1024];
    float *x = NULL;
    if (fread(head, 1, 10, f) != 10 || memcmp(head, magic, 8) != 0) goto done;
    size_t hlen = (unsigned char)head[8] | (size_t)(unsigned char)head[9] << 8;
    if (hlen >= sizeof header || fread(header, 1, hlen, f) != hlen) goto done;
    header[hlen] = '\0';
    const char *shape = strstr(header, "'shape': (");
    if (!strstr(header, "'descr': '<f4'") || !shape ||
        sscanf(shape, "'shape': (%d, %d)", rows, cols) != 2 || *rows < 1 || *cols < 1)
        goto done;
    size_t count = (size_t)*rows * *cols;
    x = malloc(count * sizeof *x);
    if (x && fread(x, sizeof *x, count, f) != count) {
        free(x);
        x = NULL;
    }
done:
    fclose(f);
    return x;
}
