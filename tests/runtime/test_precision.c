/* Mixed-precision helpers: half and bfloat16 conversions (exact values,
   rounding, overflow, subnormals, NaN) and the loss scaler's schedule. */
#include <math.h>
#include <string.h>

#include "../unit/check.h"
#include "dist/collectives.h"
#include "api/ctx.h"
#include "pipe/precision.h"

static void test_f16(void)
{
    CHECK_EQ_U64(pipe_f32_to_f16(1.0f), 0x3c00);
    CHECK_EQ_U64(pipe_f32_to_f16(-2.0f), 0xc000);
    CHECK_EQ_U64(pipe_f32_to_f16(65504.0f), 0x7bff);       /* the largest half */
    CHECK_EQ_U64(pipe_f32_to_f16(70000.0f), 0x7c00);       /* overflows to inf */
    CHECK_EQ_U64(pipe_f32_to_f16(5.96046448e-8f), 0x0001); /* the smallest subnormal */
    CHECK_EQ_U64(pipe_f32_to_f16(1e-10f), 0x0000);
    CHECK(pipe_f32_to_f16(1.0f + 1.0f / 2048) == 0x3c00);  /* a tie rounds to even */
    CHECK(pipe_f32_to_f16(1.0f + 3.0f / 2048) == 0x3c02);
    CHECK(isnan(pipe_f16_to_f32(pipe_f32_to_f16(NAN))));
    CHECK(pipe_f16_to_f32(0x0001) == 5.96046448e-8f);
    for (int i = -2048; i <= 2048; i++)
        CHECK(pipe_f16_to_f32(pipe_f32_to_f16((float)i)) == (float)i);
}

static void test_bf16(void)
{
    CHECK_EQ_U64(pipe_f32_to_bf16(1.0f), 0x3f80);
    CHECK_EQ_U64(pipe_f32_to_bf16(-1.5f), 0xbfc0);
    CHECK(pipe_bf16_to_f32(pipe_f32_to_bf16(3.0e38f)) > 2.9e38f);
    CHECK(isnan(pipe_bf16_to_f32(pipe_f32_to_bf16(NAN))));
    CHECK(isinf(pipe_bf16_to_f32(pipe_f32_to_bf16(INFINITY))));
    for (int i = -256; i <= 256; i++)
        CHECK(pipe_bf16_to_f32(pipe_f32_to_bf16((float)i)) == (float)i);
    float src[5] = {0.5f, -0.25f, 2.0f, 100.0f, 0.0f}, back[5];
    pipe_bf16 mid[5];
    pipe_f32_to_bf16_n(src, mid, 5);
    pipe_bf16_to_f32_n(mid, back, 5);
    CHECK(memcmp(src, back, sizeof src) == 0);
}

static void test_scaler(void)
{
    struct pipe_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.world_size = ctx.coll.world_size = 1;
    ctx.coll.backend = pipe_coll_select(&ctx.coll);
    pipe_loss_scaler s;
    pipe_loss_scaler_init(&s);
    CHECK(s.scale == 65536.0f);
    float grads[3] = {65536.0f, -131072.0f, 0.0f};
    bool apply = false;
    CHECK_EQ_INT(pipe_loss_scaler_step(&ctx, &s, grads, 3, &apply), 0);
    CHECK(apply);
    CHECK(grads[0] == 1.0f && grads[1] == -2.0f && grads[2] == 0.0f);
    /* An overflow: the step is skipped, grads untouched, the scale halves. */
    float bad[2] = {INFINITY, 1.0f};
    CHECK_EQ_INT(pipe_loss_scaler_step(&ctx, &s, bad, 2, &apply), 0);
    CHECK(!apply);
    CHECK(bad[1] == 1.0f);
    CHECK(s.scale == 32768.0f);
    CHECK_EQ_INT((int)s.skipped, 1);
    float nan_grads[1] = {NAN};
    CHECK_EQ_INT(pipe_loss_scaler_step(&ctx, &s, nan_grads, 1, &apply), 0);
    CHECK(!apply);
    CHECK(s.scale == 16384.0f);
    /* growth_interval good steps double it. */
    s.growth_interval = 3;
    for (int i = 0; i < 3; i++)
        pipe_loss_scaler_update(&s, false);
    CHECK(s.scale == 32768.0f);
    CHECK_EQ_INT(s.good_steps, 0);
}

int main(void)
{
    test_f16();
    test_bf16();
    test_scaler();
    return check_summary();
}
