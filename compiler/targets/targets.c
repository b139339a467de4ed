/* The table of deploy targets, and what --target and the checker ask of it.
   A new target is one row here; its descriptor is in targets/NAME.c. */
#include "targets.h"

#include <limits.h>
#include <string.h>

extern const deploy_target target_local, target_docker, target_slurm, target_kubernetes, target_skypilot,
    target_batch;

/* The order their files are generated in, and the order --help lists them. */
const deploy_target *const deploy_targets[] = {
    &target_local, &target_docker, &target_slurm, &target_kubernetes, &target_skypilot, &target_batch,
};
const size_t deploy_target_count = sizeof deploy_targets / sizeof deploy_targets[0];

_Static_assert(sizeof deploy_targets / sizeof deploy_targets[0] <= sizeof(unsigned) * CHAR_BIT,
               "a target set (unsigned) has one bit per target");
_Static_assert(sizeof deploy_targets / sizeof deploy_targets[0] <= CHECK_RULES_MAX,
               "the checker takes the rules of every target");

/* Every row's bit: what targets_text calls `all`. */
static unsigned every_target(void)
{
    return deploy_target_count < sizeof(unsigned) * CHAR_BIT ? target_bit(deploy_target_count) - 1 : ~0u;
}

const char *targets_text(arena *a, unsigned mask)
{
    if ((mask & every_target()) == every_target())
        return "all";
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < deploy_target_count; i++)
        if (mask & target_bit(i))
            sb_printf(&sb, "%s%s", sb.len ? "," : "", deploy_targets[i]->name);
    const char *text = arena_strdup(a, sb.len ? sb_cstr(&sb) : "local");
    sb_free(&sb);
    return text;
}

static bool word_is(const char *word, size_t n, const char *name)
{
    return strlen(name) == n && strncmp(name, word, n) == 0;
}

bool parse_targets(const char *list, unsigned *mask, const char **bad)
{
    *mask = TARGET_LOCAL;
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        bool found = word_is(p, n, "all");
        if (found)
            *mask |= TARGET_ALL;
        for (size_t i = 0; i < deploy_target_count; i++) {
            if (word_is(p, n, deploy_targets[i]->name)) {
                *mask |= target_bit(i);
                found = true;
            }
        }
        if (!found) {
            *bad = p;
            return false;
        }
        p += n + (comma ? 1 : 0);
    }
    return true;
}

void targets_choices(strbuf *sb, const char *sep)
{
    for (size_t i = 0; i < deploy_target_count; i++)
        sb_printf(sb, "%s%s", i ? sep : "", deploy_targets[i]->name);
    sb_puts(sb, " or all");
}

bool targets_run_containers(unsigned mask)
{
    for (size_t i = 0; i < deploy_target_count; i++)
        if ((mask & target_bit(i)) && deploy_targets[i]->runs_containers)
            return true;
    return false;
}

void targets_check_build(diag_engine *d, const pipeline_info *pl, unsigned mask)
{
    for (size_t i = 0; i < deploy_target_count; i++)
        if ((mask & target_bit(i)) && deploy_targets[i]->check_build)
            deploy_targets[i]->check_build(d, pl);
}
