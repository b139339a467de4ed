/* A header a native step lists in `source`. */
int ok_main(void *ctx, const void *args);
