/* The steps of the AWS Batch test pipeline (cases.pipe): the tests build
   its bundle, they never compile or run these. */
int fargate(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int spot(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int neuron_resources(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int efa_gpu(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int gpus(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int brief(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int hostile(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
