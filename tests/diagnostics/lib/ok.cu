__global__ void ok_kernel(void) {}
