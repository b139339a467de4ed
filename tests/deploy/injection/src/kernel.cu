/* A CUDA source, so that the image of `second` compiles with nvcc. */
__global__ void injection_noop(void) {}
