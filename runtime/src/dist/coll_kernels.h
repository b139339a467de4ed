/* The element-wise kernels of the CPU collectives (private): the reduction
   of several buffers into one, for every dtype and op, in a portable
   version and, on x86-64 with gcc or clang, AVX2 and AVX-512 versions
   chosen at run time from what the CPU has (coll_kernels.c).

   Every version combines the sources in the same order,
   ((s0 op s1) op s2) ..., element by element, with the same operations
   (16-bit floats are combined in float and rounded once): they give the
   same bits, except that a NaN may come out with another payload. */
#ifndef PIPE_COLL_KERNELS_H
#define PIPE_COLL_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/pipe.h"

/* The instruction sets, best last. */
typedef enum { PIPE_ISA_SCALAR, PIPE_ISA_AVX2, PIPE_ISA_AVX512, PIPE_ISA_COUNT } pipe_coll_isa;

/* dst[i] = srcs[0][i] op srcs[1][i] op ... op srcs[nsrc-1][i] for i < n
   (elements of dtype; PIPE_AVG sums). dst may be one of the sources; the
   buffers need only the alignment of their element type. nsrc >= 1. */
void pipe_coll_reduce(void *dst, const void *const *srcs, int nsrc, size_t n, pipe_dtype dtype, pipe_op op);

/* The same with the kernels of a given instruction set (the tests compare
   them); false when this build or this CPU has no such kernels. */
bool pipe_coll_reduce_isa(pipe_coll_isa isa, void *dst, const void *const *srcs, int nsrc, size_t n,
                          pipe_dtype dtype, pipe_op op);

/* The instruction set pipe_coll_reduce uses on this CPU, and its name. */
pipe_coll_isa pipe_coll_best_isa(void);
const char *pipe_coll_isa_name(pipe_coll_isa isa);

#endif
