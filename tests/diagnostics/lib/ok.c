int ok_main(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }
