/* The kernels of kernels_as_c.c by name (their C signatures differ: called through libffi). */
#ifndef WEFT_KERNELS_AS_C_H
#define WEFT_KERNELS_AS_C_H

typedef struct c_kernel {
  const char *name;
  void (*fn)(void);
} c_kernel;

extern const c_kernel c_kernels[];
extern const unsigned n_c_kernels;

#endif
