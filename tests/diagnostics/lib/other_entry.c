/* Defines something else: `train` only appears in a comment, a string and a
   declaration here, so W0407 still reports it. */
int train(void *ctx, const void *args);
static const char *name = "train(x) {";
int train_main(void *ctx, const void *args) { (void)ctx; (void)args; (void)name; return 0; }
