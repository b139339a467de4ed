/* Internal interface between the checker's driver (sema.c) and its passes
   (one file per concern); the helpers the passes share are in sema_util.h. */
#ifndef PIPEC_SEMA_H
#define PIPEC_SEMA_H

#include "program.h"

typedef struct sema {
    program *pg;
    const check_options *opts;
    /* Files with syntax errors: names may have been lost in recovery, so
       "unknown name" errors and unused warnings are not reported. */
    bool lost_names;
    /* An import could not be loaded: unknown steps may be declared there (no E0102). */
    bool import_failed;
    /* import -> the file it loaded, for declaring steps in reading order. */
    ptr_vec import_links; /* import_link* */
    /* Declarations whose decorators may have lost something to a lexical or
       syntax error (sema_decl_damaged), computed once. */
    ptr_vec damaged_decls;
    bool damage_known;
    /* resolved source path -> the names it defines (sema_entry.c). */
    symtab entry_scans;
    /* resolved source path -> its stat (sema_steps.c): 1 when missing, else
       st_mode + 2; one stat per file however many steps list it. */
    symtab source_modes;
} sema;

typedef struct import_link {
    const ast_import *import;
    uint32_t file;
} import_link;

/* sema_load.c: parses the root file and its imports (E0111, E0112). */
void sema_load_imports(sema *s, uint32_t root);
/* sema_steps.c: step declarations (E0101, E0105, E0110, E0113, E0116, E0201, E0208...). */
void sema_declare_steps(sema *s);
/* sema_command.c: a command step's `command` (E0201 for its value, E0119 for
   its placeholders) and what it cannot have (E0120). Called from
   sema_steps.c once the step's parameters, outputs and sources are known. */
void sema_check_command_value(sema *s, step_info *st, ast_field *command);
void sema_check_command_step(sema *s, step_info *st, ast_field *command, ast_field *entry, ast_field *libraries);
/* sema_unused_param.c: W0412 for a command step's value parameter that no
   placeholder of its command names and no file of its source reads
   (ncommand_items: the list's length; a command with a bad entry is not
   searched). */
void sema_check_params_used(sema *s, const step_info *st, size_t ncommand_items);
/* sema_entry.c: W0407 when no source of a native step appears to define its
   entry function (entry_field: the `entry` field, NULL when defaulted). */
void sema_check_entry_defined(sema *s, step_info *st, ast_field *entry_field);
void sema_free_entry_scans(sema *s);
/* sema_pipelines.c: pipelines and their invocations, W0404/W0405. */
void sema_check_pipelines(sema *s);
/* sema_rules.c: rules over the options in force for a step in a pipeline
   (pipeline NULL: the step's own options only), the rules of the options
   (check_options.rules: the deploy targets') among them. */
void sema_check_accelerate(sema *s, step_info *st);
/* damaged: the declarations the options come from lost something to a
   syntax error, so the rules that combine them (E0305, E0401, W0401-W0403)
   stay silent. */
void sema_check_effective(sema *s, step_info *st, const effective_options *eff, bool damaged);
/* The rules of the options over a pipeline's invocations (check_rule.pipeline). */
void sema_check_pipeline_rules(sema *s, const pipeline_info *pl);

#endif
