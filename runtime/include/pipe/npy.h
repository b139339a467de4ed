/* NumPy .npy arrays: the file format that numpy.save writes and numpy.load
 * and torch.from_numpy read, so that a C step and a Python command step
 * share tensors without a format of their own (docs/step-api.md).
 *
 *   // a C step writes its output
 *   size_t shape[2] = {n, 784};
 *   FILE *out = pipe_output_open(ctx, "images");
 *   if (!out || pipe_npy_write_stream(out, PIPE_F32, 2, shape, pixels, err, sizeof err) != 0)
 *       return pipe_fail(ctx, "images: %s", err);
 *
 *   // the next step reads it back (or: numpy.load(path) in Python)
 *   pipe_npy_array a;
 *   if (pipe_npy_read(pipe_input_path(ctx, "images"), &a, err, sizeof err) != 0)
 *       return pipe_fail(ctx, "%s", err);
 *   const float *px = a.data;   // a.shape[0] x a.shape[1], C order
 *   ...
 *   pipe_npy_free(&a);
 *
 * Element types: PIPE_F32 (float32), PIPE_F64 (float64), PIPE_I32 (int32),
 * PIPE_I64 (int64), PIPE_U8 (uint8) and PIPE_F16 (float16, as pipe_f16).
 * Any number of dimensions up to PIPE_NPY_MAX_DIMS, 0 for a scalar; data in
 * C (row-major) order. Files are written in format version 1.0, in this
 * machine's byte order, as numpy.save writes them; versions 1.0,
 * 2.0 and 3.0 are read, in either byte order, and converted to this
 * machine's. A Fortran-order array of two or more dimensions or another
 * element type (bool, int16, complex, strings, objects) is refused with a
 * message that says so.
 *
 * Errors follow the runtime's conventions: 0 or a negative PIPE_E* code
 * (PIPE_EINVAL bad arguments, PIPE_EIO read or write failures, PIPE_ENOENT
 * no such file, PIPE_EFORMAT not a .npy file or a truncated one,
 * PIPE_ENOTSUP an element type or layout this reader refuses, PIPE_ENOMEM),
 * and a message naming the file in err (err may be NULL when errsize is 0).
 */
#ifndef PIPE_NPY_H
#define PIPE_NPY_H

#include <stddef.h>
#include <stdio.h>

#include "pipe/pipe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* numpy's own limit on dimensions (NPY_MAXDIMS in numpy 2). */
#define PIPE_NPY_MAX_DIMS 64

typedef struct pipe_npy_array {
    pipe_dtype dtype; /* PIPE_F32, PIPE_F64, PIPE_I32, PIPE_I64, PIPE_U8 or PIPE_F16 */
    int ndim;         /* 0 for a scalar */
    size_t shape[PIPE_NPY_MAX_DIMS];
    size_t count;     /* elements: the product of shape (1 for a scalar, 0 when a dimension is 0) */
    void *data;       /* count elements, C order, this machine's byte order; owned, see pipe_npy_free */
} pipe_npy_array;

/* Writes an array to path: through a temporary file in the same folder,
   flushed, fsynced and renamed, so path is never half-written. data holds
   the product of shape elements of dtype (it may be NULL when that is 0). */
int pipe_npy_write(const char *path, pipe_dtype dtype, int ndim, const size_t *shape, const void *data, char *err,
                   size_t errsize);
/* The same into an open stream, such as pipe_output_open's (the runtime
   makes that one atomic); f stays open. */
int pipe_npy_write_stream(FILE *f, pipe_dtype dtype, int ndim, const size_t *shape, const void *data, char *err,
                          size_t errsize);

/* Reads the array in path into *out (zeroed first; on success the caller
   owns out->data and frees it with pipe_npy_free). */
int pipe_npy_read(const char *path, pipe_npy_array *out, char *err, size_t errsize);
/* The same from an open stream positioned at the start of a .npy file;
   name is what messages call it (a path, an input's name). */
int pipe_npy_read_stream(FILE *f, const char *name, pipe_npy_array *out, char *err, size_t errsize);

/* Frees out->data and zeroes the array; harmless on a zeroed one. */
void pipe_npy_free(pipe_npy_array *a);

/* numpy's name for a dtype ("float32", "uint8"), or NULL for one .npy
   files cannot hold here (PIPE_BF16). */
const char *pipe_npy_dtype_name(pipe_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif
