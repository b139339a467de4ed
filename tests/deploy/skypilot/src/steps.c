/* The steps of the SkyPilot test pipelines (gpus.pipe, store.pipe): the
   tests build their bundles, they never compile or run these. */
int prepare(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int train(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int h100(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int a100_80(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int a100_40(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int t4(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int mi300x(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int unknown(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int explicit_name(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
