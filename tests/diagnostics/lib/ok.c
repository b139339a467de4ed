/* The entry functions of the steps of the diagnostics cases: pipec only
   checks that this file exists and scans it for definitions (W0407). */
int ok_main(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
int a(void *ctx, const void *args) { return ok_main(ctx, args); }
int b(void *ctx, const void *args) { return ok_main(ctx, args); }
int c(void *ctx, const void *args) { return ok_main(ctx, args); }
int clean(void *ctx, const void *args) { return ok_main(ctx, args); }
int cleanup(void *ctx, const void *args) { return ok_main(ctx, args); }
int count(void *ctx, const void *args) { return ok_main(ctx, args); }
int d(void *ctx, const void *args) { return ok_main(ctx, args); }
int evaluate(void *ctx, const void *args) { return ok_main(ctx, args); }
int finetune(void *ctx, const void *args) { return ok_main(ctx, args); }
int from_a(void *ctx, const void *args) { return ok_main(ctx, args); }
int from_b(void *ctx, const void *args) { return ok_main(ctx, args); }
int load(void *ctx, const void *args) { return ok_main(ctx, args); }
int merge(void *ctx, const void *args) { return ok_main(ctx, args); }
int prepare(void *ctx, const void *args) { return ok_main(ctx, args); }
int preprocess(void *ctx, const void *args) { return ok_main(ctx, args); }
int publish(void *ctx, const void *args) { return ok_main(ctx, args); }
int report(void *ctx, const void *args) { return ok_main(ctx, args); }
int report_main(void *ctx, const void *args) { return ok_main(ctx, args); }
int split(void *ctx, const void *args) { return ok_main(ctx, args); }
int train(void *ctx, const void *args) { return ok_main(ctx, args); }
int train_main(void *ctx, const void *args) { return ok_main(ctx, args); }
int train_v2(void *ctx, const void *args) { return ok_main(ctx, args); }
int unused(void *ctx, const void *args) { return ok_main(ctx, args); }
