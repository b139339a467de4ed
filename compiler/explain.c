#include "explain.h"

#include <string.h>

/*
 * One entry per code of the spec's diagnostics table, in code order.
 * Every "right" snippet checks clean (apart from needing its source and
 * imported files to exist), so tests can feed them to the checker;
 * docs/diagnostics.md is explain_write_markdown()'s output and must be
 * regenerated when this table changes.
 */
static const explain_entry entries[] = {
    {
        .code = "E0001",
        .title = "character that starts no token",
        .position = "the character",
        .text =
            "`pipec` met a character that cannot begin any token. Outside "
            "strings and comments a `.pipe` file holds only identifiers, "
            "numbers, strings, the punctuation `@ ( ) { } [ ] , = : -> .` and "
            "whitespace; everything else is reported here, at the character "
            "itself.\n"
            "\n"
            "The usual causes are habits from other languages:\n"
            "- a `;` after a field or statement (C): a field or a statement "
            "simply ends where the next one begins, there is no terminator;\n"
            "- `'single quotes'` (Python, YAML): strings use double quotes only;\n"
            "- `//` or `/* */` comments (C): comments start with `#`;\n"
            "- `$HOME` or `${VAR}` (shell): `.pipe` files do no expansion; pass "
            "the value as a pipeline parameter, or put it in an `environment` "
            "map, where the step reads it at run time.\n"
            "\n"
            "`pipec` reports the character and carries on, so the other errors "
            "in the file are reported in the same run.",
        .wrong =
            "step report(path: string) {\n"
            "    source = \"src/report.c\";\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0002",
        .title = "unterminated string",
        .position = "opening quote",
        .text =
            "A string was opened with `\"` and the line (or the file) ended "
            "before the closing `\"`. Strings in `.pipe` files must begin and end "
            "on the same line. The position is the opening quote, because that "
            "is where the mistake is usually visible: the quote that should "
            "close it is missing or was typed as a different character.\n"
            "\n"
            "To put a line break inside a string, write the escape `\\n`. For a "
            "value that is naturally several items (several source files, "
            "several apt packages, several `#SBATCH` flags), use a list of "
            "strings instead of one long string: `source = [\"src/train.cu\", "
            "\"src/model.c\"]`.",
        .wrong =
            "step report(path: string) {\n"
            "    source = \"src/report.c\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0003",
        .title = "unknown escape in a string",
        .position = "the backslash",
        .text =
            "Inside a string a backslash must start one of the four escapes `\\\"` "
            "(a quote), `\\\\` (a backslash), `\\n` (a newline) or `\\t` (a tab). "
            "Any other character after the backslash is an error, reported at "
            "the backslash.\n"
            "\n"
            "The rule is strict because a string in a `.pipe` file travels into "
            "several other languages: C source for the driver, shell words in "
            "launch scripts, YAML for Kubernetes and SkyPilot, Dockerfile "
            "instructions. An escape like `\\d` or `\\$` means something different "
            "(or nothing) in each of them. `pipec` accepts only escapes whose "
            "meaning is unambiguous, decodes them once, and re-escapes the value "
            "correctly for each output.\n"
            "\n"
            "To write a literal backslash, double it: `\"\\\\d+\"` is the three "
            "characters `\\d+`. For Windows-style paths, use forward slashes: "
            "`\"data/train.csv\"`.",
        .wrong =
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "    description = \"counts the rows matching \\d+\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "    description = \"counts the rows matching \\\\d+\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0004",
        .title = "malformed or out-of-range number",
        .position = "the literal",
        .text =
            "A numeric literal could not be read as a value of its type. `int` "
            "is a signed 64-bit integer, so an integer literal must lie between "
            "-9223372036854775808 and 9223372036854775807; a float literal must "
            "be a finite `double` (`1e999` is not). Numbers are decimal only: "
            "there are no hexadecimal, octal or binary literals, no digit "
            "separators such as `1_000`, and no `inf` or `nan`.\n"
            "\n"
            "`pipec` checks this when it reads the file rather than letting the "
            "C compiler or the runtime find it later: an out-of-range default "
            "would otherwise be silently wrapped or truncated when it is written "
            "into the generated driver, and the step would run with a value you "
            "never wrote.\n"
            "\n"
            "If you need an unsigned 64-bit quantity such as a seed, pick one "
            "that fits in the signed range; if you need a very large size or "
            "duration, use the unit forms (`\"4TiB\"`, `\"7d\"`), which are checked "
            "separately (E0205, E0206).",
        .wrong =
            "step train(data_path: string, seed: int = 18446744073709551615) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "step train(data_path: string, seed: int = 42) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0010",
        .title = "syntax error",
        .position = "the unexpected token",
        .text =
            "The tokens are all valid, but they are not in an order the grammar "
            "allows. The message names the token that was found and what was "
            "expected at that point; the position is the unexpected token. The "
            "mistake is often just before it.\n"
            "\n"
            "The most common causes:\n"
            "- `:` where `=` belongs. `:` appears only between a parameter or "
            "output and its type (`epochs: int`) and between a key and its value "
            "in a map (`{\"NCCL_DEBUG\": \"WARN\"}`). Fields, arguments, options and "
            "defaults use `=`.\n"
            "- a parameter without a type: write `step train(data: dataset)`, "
            "not `step train(data)`.\n"
            "- Python or C keywords (`def`, `fn`, `return`): a step is declared "
            "with `step`, a pipeline with `pipeline`, and steps return through "
            "`-> name: type` outputs.\n"
            "- a missing comma between arguments or list items. (A trailing "
            "comma is allowed in every list.)\n"
            "\n"
            "The grammar deliberately accepts positional arguments, chained "
            "calls such as `run_with_accelerate(train)(...)` and calls nested in "
            "arguments, so those mistakes get their own precise codes (E0117, "
            "E0118, E0301, E0303, E0308) instead of a bare syntax error.",
        .wrong =
            "step report(path: string) {\n"
            "    source: \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0101",
        .title = "step or pipeline declared twice",
        .position = "the second declaration's name",
        .text =
            "Two declarations use the same name. Step names are unique across a "
            "file and every file it imports (transitively), because a pipeline "
            "refers to a step by name alone and the name becomes the invocation "
            "id, the name of its generated driver and the job name on the "
            "cluster. Pipeline names are unique within a file for the same "
            "reason: `pipec build --pipeline NAME` must pick exactly one. The "
            "error is reported at the second declaration's name; a note points "
            "to the first.\n"
            "\n"
            "There is no overloading. If the two declarations are really "
            "different steps, rename one. If you wanted the same step with other "
            "settings, declare it once and invoke it twice with different "
            "arguments: invocations get the ids `report`, `report_2`, ... "
            "automatically.\n"
            "\n"
            "When the first declaration is in an imported file, the note names "
            "that file: either drop your copy and use the imported step, or "
            "rename yours.",
        .wrong =
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "step report(path: string) {\n"
            "    source = \"src/report_v2.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "step report_v2(path: string) {\n"
            "    source = \"src/report_v2.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "    report_v2(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0102",
        .title = "unknown step",
        .position = "the callee name",
        .text =
            "A pipeline statement calls a name that is not a step declared in "
            "this file or in any file it imports. When a declared step has a "
            "similar name, the help line suggests it.\n"
            "\n"
            "Check for:\n"
            "- a typo (the suggestion usually finds it);\n"
            "- a missing `import \"steps/data.pipe\"`; imports are transitive, so "
            "any file reachable through imports is enough;\n"
            "- calling a pipeline from a pipeline: pipelines are not steps and "
            "cannot be invoked; move the shared statements into one pipeline, or "
            "share the steps through an import;\n"
            "- calling a decorator such as `run_with_accelerate` as a function: "
            "that is E0301.\n"
            "\n"
            "In a Python orchestrator a misspelled step is a `NameError` raised "
            "only when the pipeline module is imported on the machine that runs "
            "it; here it is found before anything is built.",
        .wrong =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    trian(data = ds)\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    train(data = ds)\n"
            "}\n"
            "",
    },
    {
        .code = "E0103",
        .title = "unknown parameter",
        .position = "the argument name",
        .text =
            "A keyword argument names a parameter that the called step does not "
            "have. The help line lists the step's parameters and, when one is "
            "close, suggests it. The same code is reported when a call passes "
            "more positional arguments than the step has parameters, at the "
            "first extra one.\n"
            "\n"
            "`pipec` does not ignore unknown arguments: a misspelled `epoch = 5` "
            "that is silently dropped leaves `epochs` at its default, and the "
            "run trains for the wrong number of epochs without any error. In a "
            "Python pipeline the same typo is a `TypeError` that appears only "
            "once the pipeline is running, after the earlier steps have already "
            "spent their time.",
        .wrong =
            "step train(data_path: string, epochs: int = 10, lr: float = 0.01) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\", epoch = 5)\n"
            "}\n"
            "",
        .right =
            "step train(data_path: string, epochs: int = 10, lr: float = 0.01) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\", epochs = 5)\n"
            "}\n"
            "",
    },
    {
        .code = "E0104",
        .title = "required parameter missing",
        .position = "the callee name",
        .text =
            "A call does not pass a value for a parameter that has no default. "
            "The message names every missing parameter; the position is the step "
            "name in the call.\n"
            "\n"
            "A parameter is required when its declaration has no `= value`. "
            "Artifact parameters (any type other than `int`, `float`, `bool` and "
            "`string`) are always required: they must be fed by an output of "
            "another step, and they cannot have a default (E0208).\n"
            "\n"
            "Either pass the argument in the call, or, for a scalar parameter, "
            "give it a default in the step declaration. If the value should be "
            "chosen when the pipeline runs, declare it as a pipeline parameter "
            "and pass that: `pipeline training(data_path: string = "
            "\"data/train.csv\")` and then `train(data_path = data_path)`.",
        .wrong =
            "step train(data_path: string, epochs: int = 10) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(epochs = 5)\n"
            "}\n"
            "",
        .right =
            "step train(data_path: string, epochs: int = 10) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\", epochs = 5)\n"
            "}\n"
            "",
    },
    {
        .code = "E0105",
        .title = "argument, option, field or decorator given twice",
        .position = "the second occurrence",
        .text =
            "The same thing was given twice where only one is allowed: a keyword "
            "argument in a call, an option inside one decorator, a field in a "
            "step body, or the same decorator twice on one declaration. A "
            "parameter passed once by position and again by keyword is also "
            "given twice. The error is at the second occurrence; a note points "
            "to the first.\n"
            "\n"
            "`pipec` does not let the last one win, as a YAML mapping or a "
            "Python `dict` literal would: with two values on the page there is "
            "no way to tell which one you meant, and picking one silently is how "
            "a job ends up with 4 CPUs when the line you edited says 8. Keep the "
            "value you want and delete the other.\n"
            "\n"
            "A pipeline-level decorator and a step-level decorator of the same "
            "kind are not duplicates: the step's options override the pipeline's "
            "defaults option by option. A second `@run_with_accelerate` on a "
            "step is reported as E0302.",
        .wrong =
            "@resources(cpu = 4, memory = \"8GB\", cpu = 8)\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(cpu = 8, memory = \"8GB\")\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0106",
        .title = "unknown artifact or pipeline parameter",
        .position = "the name",
        .text =
            "An argument is a bare name, and that name is neither a parameter of "
            "the enclosing pipeline nor a target bound by a statement of that "
            "pipeline.\n"
            "\n"
            "In a pipeline, a bare identifier always refers to data: a pipeline "
            "parameter (a value that can be overridden when the pipeline runs) "
            "or an artifact that an earlier step produced. It is never a string: "
            "`mode = fast` looks for an artifact called `fast`; write `mode = "
            "\"fast\"`. Names bound in another pipeline, and the parameter names "
            "of the called step, are not visible here, which is the mistake in "
            "the example: `epochs` is the step's parameter, the pipeline's is "
            "`num_epochs`.",
        .wrong =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset, epochs: int = 10) { source = "
            "\"src/train.c\" }\n"
            "\n"
            "pipeline training(num_epochs: int = 5) {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    train(data = ds, epochs = epochs)\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset, epochs: int = 10) { source = "
            "\"src/train.c\" }\n"
            "\n"
            "pipeline training(num_epochs: int = 5) {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    train(data = ds, epochs = num_epochs)\n"
            "}\n"
            "",
    },
    {
        .code = "E0107",
        .title = "name bound twice in a pipeline",
        .position = "the second binding",
        .text =
            "A pipeline statement binds a name that an earlier statement of the "
            "same pipeline already bound. The error is at the second binding; a "
            "note points to the first.\n"
            "\n"
            "A pipeline is a data-flow graph, not a sequence of assignments. "
            "Each bound name is one artifact: one output of one step invocation, "
            "stored, cached and shown under that name. Rebinding a name would "
            "make every use of it ambiguous (which of the two artifacts does "
            "`train` get?) and would give two different artifacts the same name "
            "in the run's records. Give each result its own name, as in the "
            "corrected example; the two invocations of `load` get the ids `load` "
            "and `load_2`.",
        .wrong =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(train_set: dataset, test_set: dataset) { source = "
            "\"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    ds = load(path = \"data/test.csv\")\n"
            "    train(train_set = ds, test_set = ds)\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(train_set: dataset, test_set: dataset) { source = "
            "\"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    train_ds = load(path = \"data/train.csv\")\n"
            "    test_ds = load(path = \"data/test.csv\")\n"
            "    train(train_set = train_ds, test_set = test_ds)\n"
            "}\n"
            "",
    },
    {
        .code = "E0108",
        .title = "unknown decorator",
        .position = "the decorator name after `@`",
        .text =
            "The name after `@` is not one of the decorators `pipec` knows: "
            "`@resources`, `@docker`, `@run_with_accelerate`, `@cleanup_memory`, "
            "`@gpu_profile`, `@timeout`, `@retry`, `@slurm`, `@kubernetes` and "
            "`@skypilot`. The help line suggests the closest one.\n"
            "\n"
            "Frequent causes are a misspelling (`@resource`), and decorators "
            "carried over from Python: `@step` and `@pipeline` are not needed, "
            "since the keywords `step` and `pipeline` declare those. Options "
            "that ZenML or Metaflow spread over separate decorators or settings "
            "objects live in these ten decorators; for instance Metaflow's "
            "`@conda`/`@pypi` and ZenML's `DockerSettings` correspond to "
            "`@docker(parent_image = ..., requirements = [...])`.\n"
            "\n"
            "Unknown decorators are errors rather than ignored, because an "
            "ignored `@resource(gpu = 1)` would deploy a GPU training step onto "
            "a CPU node.",
        .wrong =
            "@resource(cpu = 4, memory = \"8GB\")\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(cpu = 4, memory = \"8GB\")\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0109",
        .title = "unknown decorator option",
        .position = "the option name",
        .text =
            "A decorator was given an option it does not have. The help line "
            "lists the decorator's options and suggests the closest one.\n"
            "\n"
            "Option names differ between orchestrators, which makes this easy to "
            "get wrong: ZenML's `ResourceSettings` says `cpu_count` and "
            "`gpu_count`, SkyPilot says `accelerators`, Slurm says "
            "`--gpus-per-node`. `pipec` uses one vocabulary and translates it "
            "for every target: `@resources(cpu, gpu, memory, disk, shm, "
            "gpu_type)`. See the decorator table in the language reference for "
            "every decorator's options.\n"
            "\n"
            "The option is rejected rather than ignored because an ignored "
            "`gpu_count = 1` produces a job that asks for no GPU at all and "
            "fails (or runs on the CPU for hours) only after it has been "
            "scheduled.",
        .wrong =
            "@resources(cpu = 8, memory = \"32GB\", gpu_count = 1)\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.cu\"\n"
            "}\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(cpu = 8, memory = \"32GB\", gpu = 1)\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.cu\"\n"
            "}\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0110",
        .title = "unknown step body field",
        .position = "the field name",
        .text =
            "A step body may contain only these fields:\n"
            "- `source`: a string or a list of `.c`/`.cu` paths, relative to the "
            "`.pipe` file (required);\n"
            "- `entry`: the C function to call (default: the step name);\n"
            "- `description`: a string shown in generated manifests and docs;\n"
            "- `cache`: a bool, `true` by default;\n"
            "- `environment`: a map of environment variables for the step.\n"
            "\n"
            "Anything else is rejected. Resources, images, retries and the like "
            "are not fields: they are decorators written before `step` (`memory "
            "= \"8GB\"` in a body belongs in `@resources(memory = \"8GB\")`).",
        .wrong =
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "    entrypoint = \"train_main\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "    entry = \"train_main\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0111",
        .title = "imported file missing or unreadable",
        .position = "the `import` keyword",
        .text =
            "The file named by an `import` could not be opened. The message "
            "includes the reason the operating system gave (no such file, "
            "permission denied, is a directory).\n"
            "\n"
            "Import paths are relative to the directory of the file that "
            "contains the `import`, not to the directory `pipec` was started in, "
            "so the same `.pipe` file builds the same way from anywhere. Also "
            "check the case of every letter: macOS file systems usually ignore "
            "case, but Linux, containers and CI runners do not, so "
            "`Steps/Data.pipe` can work on a laptop and fail in CI.",
        .wrong =
            "import \"step/reports.pipe\"    # declares report(path: string)\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "import \"steps/reports.pipe\"   # declares report(path: string)\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0112",
        .title = "import cycle",
        .position = "the `import` keyword",
        .text =
            "A file imports itself, directly or through other files. The message "
            "prints the chain, e.g. `training.pipe -> data.pipe -> "
            "training.pipe`, and points at the `import` keyword of an import in "
            "it.\n"
            "\n"
            "A cycle is never needed: imports are transitive, and pipelines in "
            "imported files are ignored, so the importing file already sees "
            "every step of everything it imports. A cycle usually means a step "
            "was put in the wrong file. Keep the dependencies pointing one way: "
            "shared steps go in a file that imports nothing from the files that "
            "use it. If two files each need a step of the other, move those "
            "steps into a third file that both import.\n"
            "\n"
            "The example shows two files; each line `# NAME` starts a new one.",
        .wrong =
            "# data.pipe\n"
            "import \"training.pipe\"\n"
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "\n"
            "# training.pipe\n"
            "import \"data.pipe\"\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    train(data = ds)\n"
            "}\n"
            "",
        .right =
            "# data.pipe\n"
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "\n"
            "# training.pipe\n"
            "import \"data.pipe\"\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    train(data = ds)\n"
            "}\n"
            "",
    },
    {
        .code = "E0113",
        .title = "step without `source`",
        .position = "the `step` keyword",
        .text =
            "Every step is implemented in C or CUDA, and `source` says where: "
            "one path or a list of `.c` and `.cu` paths, relative to the `.pipe` "
            "file. `pipec` compiles these files into the step's driver, copies "
            "them into the image it generates, and checks that they exist "
            "(E0116).\n"
            "\n"
            "There is no default such as `src/NAME.c`: guessing a file name "
            "would silently build whatever happens to be there, or fail far "
            "later inside a container build. Add the field. If the function to "
            "call is not named after the step, also set `entry`.",
        .wrong =
            "step train(data_path: string, epochs: int = 10) {\n"
            "    entry = \"train_main\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "step train(data_path: string, epochs: int = 10) {\n"
            "    source = [\"src/train.c\", \"src/model.c\"]\n"
            "    entry = \"train_main\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0114",
        .title = "no pipeline chosen to build",
        .position = "- (no position: file:1:1)",
        .text =
            "`pipec build` turns one pipeline into one deployable bundle, so it "
            "must know which one. This error means either that the file declares "
            "several pipelines and `--pipeline NAME` was not given, or that the "
            "file declares no pipeline at all. There is no source position to "
            "point at, so the diagnostic is reported at line 1, column 1 of the "
            "file.\n"
            "\n"
            "With several pipelines, pass the one you want: `pipec build "
            "--pipeline nightly training.pipe`. `pipec check` checks every "
            "pipeline and needs no selection.\n"
            "\n"
            "A file with no pipeline is a library of steps: it is meant to be "
            "imported. Build the file that imports it and declares the pipeline "
            "instead. (Pipelines in imported files are ignored, so moving a "
            "pipeline into an imported file does not help either.)",
        .wrong =
            "# $ pipec build training.pipe\n"
            "step train(data_path: string) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline nightly() {\n"
            "    train(data_path = \"data/full.csv\")\n"
            "}\n"
            "pipeline smoke() {\n"
            "    train(data_path = \"data/sample.csv\")\n"
            "}\n"
            "",
        .right =
            "# $ pipec build --pipeline nightly training.pipe\n"
            "step train(data_path: string) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline nightly() {\n"
            "    train(data_path = \"data/full.csv\")\n"
            "}\n"
            "pipeline smoke() {\n"
            "    train(data_path = \"data/sample.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0115",
        .title = "decorator not allowed here",
        .position = "the decorator name",
        .text =
            "The decorator exists, but not on this kind of declaration. Most "
            "decorators (`@resources`, `@docker`, `@timeout`, `@retry`, "
            "`@cleanup_memory`, `@gpu_profile`, `@slurm`, `@kubernetes`, "
            "`@skypilot`) may be put on a step or on a pipeline, where they give "
            "the default for each of its steps. `@run_with_accelerate` is "
            "allowed on steps only.\n"
            "\n"
            "`@run_with_accelerate` changes how one step's process is started: "
            "`accelerate launch` starts `num_processes` copies of it, spread "
            "over `num_machines` machines, which meet at a rendezvous and split "
            "the work between them. As a pipeline-wide default it would launch "
            "every step that way, including data loading and evaluation steps "
            "that were never written to run as several ranks, so `pipec` asks "
            "you to put it on the steps that are written for it.",
        .wrong =
            "@resources(gpu = 2)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "@run_with_accelerate(num_processes = 2, multi_gpu = true)\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 2, multi_gpu = true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0116",
        .title = "`source` file does not exist",
        .position = "the source string",
        .text =
            "A path in a step's `source` does not name an existing file. Paths "
            "are relative to the directory of the `.pipe` file that declares the "
            "step, not to the directory `pipec` runs in. Check the letter case "
            "too: the bundle is built on Linux, where `src/Model.c` and "
            "`src/model.c` are different files, even if your laptop's file "
            "system treats them as one.\n"
            "\n"
            "`pipec` checks this before generating anything because otherwise "
            "the mistake would appear much later and much further away: as a "
            "failed `COPY` in a Docker build, or a missing file in the `nvcc` "
            "command of a job already waiting in a cluster queue.",
        .wrong =
            "step train(data_path: string) {\n"
            "    source = [\"src/train.cu\", \"src/modle.c\"]\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "step train(data_path: string) {\n"
            "    source = [\"src/train.cu\", \"src/model.c\"]\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0117",
        .title = "positional argument in a decorator",
        .position = "the first positional argument",
        .text =
            "Decorator options are given by name: `@retry(max = 3)`, not "
            "`@retry(3)`. The one exception is `@timeout`, whose single option "
            "may be written either way: `@timeout(\"2h\")` or `@timeout(limit = "
            "\"2h\")`.\n"
            "\n"
            "Names are required because most decorators have several options of "
            "the same type, and their order is not something a reader can be "
            "expected to know: in `@resources(4, 2, \"16GB\")`, is `4` the CPU or "
            "the GPU count? Naming them also keeps files valid when a decorator "
            "gains options. The error is at the first positional argument.",
        .wrong =
            "@retry(3, \"30s\")\n"
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "@retry(max = 3, delay = \"30s\")\n"
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0118",
        .title = "positional argument after a keyword argument",
        .position = "the positional argument",
        .text =
            "In a call, positional arguments must all come before the keyword "
            "arguments. Positional ones are matched to the step's parameters in "
            "order, and once a keyword argument has appeared, the position a "
            "later positional argument stands for is no longer clear. This is "
            "the same rule as Python's `SyntaxError: positional argument follows "
            "keyword argument`.\n"
            "\n"
            "Name the argument, as in the corrected example (names are clearer, "
            "and required for accelerated steps, E0303). Moving it in front of "
            "the keyword arguments is correct only when it is meant for the "
            "parameter at that position: here `5` in first place would be taken "
            "as `data_path`.",
        .wrong =
            "step train(data_path: string, epochs: int = 10) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\", 5)\n"
            "}\n"
            "",
        .right =
            "step train(data_path: string, epochs: int = 10) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\", epochs = 5)\n"
            "}\n"
            "",
    },
    {
        .code = "E0201",
        .title = "value of the wrong type",
        .position = "the argument value",
        .text =
            "A value does not have the type its parameter or option expects. The "
            "types are `int` (64-bit), `float` (double), `bool` and `string`, "
            "plus artifact types for step inputs. The only conversion `pipec` "
            "makes is `int` to `float`: `lr = 1` is accepted where a `float` is "
            "expected. Nothing else converts: a `float` is not truncated to an "
            "`int`, `\"20\"` is not a number, `1` is not `true`, and a literal or "
            "a scalar pipeline parameter cannot stand for an artifact.\n"
            "\n"
            "The same rule applies to decorator options: `@resources(cpu = \"4\")` "
            "is wrong, and so is `memory = 16`, because sizes and durations are "
            "strings with a unit (`memory = \"16GB\"`).\n"
            "\n"
            "Types are checked here because every value ends up as a typed C "
            "argument (`int64_t`, `double`, `bool`, `const char *`) of the "
            "step's entry function. A Python orchestrator that validates step "
            "inputs only when the step starts reports the same mistake after the "
            "upstream steps have already run.",
        .wrong =
            "step train(data_path: string, epochs: int = 10) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\", epochs = \"20\")\n"
            "}\n"
            "",
        .right =
            "step train(data_path: string, epochs: int = 10) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\", epochs = 20)\n"
            "}\n"
            "",
    },
    {
        .code = "E0202",
        .title = "artifact of the wrong artifact type",
        .position = "the argument value",
        .text =
            "An artifact was passed to a parameter of a different artifact type. "
            "Artifact types are nominal: a type is any name other than `int`, "
            "`float`, `bool` and `string`, and `dataset` matches only `dataset`. "
            "There is no subtyping and no conversion, and names are "
            "case-sensitive (`Dataset` is another type).\n"
            "\n"
            "Artifacts are files written by one step and read by another, often "
            "in a different container on a different machine. The consumer's C "
            "code interprets the bytes according to the type it declared; "
            "handing it a `dataset` where it expects a `model` does not fail "
            "cleanly, it reads garbage or crashes halfway through the run. "
            "Usually, as in the example, two arguments were swapped. If two "
            "types really describe the same data, use one name for both.",
        .wrong =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset) -> m: model { source = \"src/train.c\" }\n"
            "step evaluate(m: model, data: dataset) { source = \"src/evaluate.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    m = train(data = ds)\n"
            "    evaluate(m = ds, data = m)\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset) -> m: model { source = \"src/train.c\" }\n"
            "step evaluate(m: model, data: dataset) { source = \"src/evaluate.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    m = train(data = ds)\n"
            "    evaluate(m = m, data = ds)\n"
            "}\n"
            "",
    },
    {
        .code = "E0203",
        .title = "number of targets differs from the step's outputs",
        .position = "the targets",
        .text =
            "A statement binds a different number of names than the called step "
            "has outputs. Targets bind the outputs in the order they are "
            "declared, one name for each: a step declared `-> (train_set: "
            "dataset, test_set: dataset)` is called as `(train_set, test_set) = "
            "split(...)`. A statement with no targets is only valid for a step "
            "that has no outputs.\n"
            "\n"
            "There is no partial binding and no splat. Python reports the same "
            "mistake as `ValueError: too many values to unpack`, but only when "
            "the step has run; here it is found from the declarations. If you do "
            "not need one of the outputs, bind it anyway (W0404 will point out "
            "that it is unused) or remove it from the step.",
        .wrong =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step split(data: dataset) -> (train_set: dataset, test_set: "
            "dataset) { source = \"src/split.c\" }\n"
            "step train(train_set: dataset, test_set: dataset) { source = "
            "\"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/all.csv\")\n"
            "    (train_set, val_set, test_set) = split(data = ds)\n"
            "    train(train_set = train_set, test_set = test_set)\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step split(data: dataset) -> (train_set: dataset, test_set: "
            "dataset) { source = \"src/split.c\" }\n"
            "step train(train_set: dataset, test_set: dataset) { source = "
            "\"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/all.csv\")\n"
            "    (train_set, test_set) = split(data = ds)\n"
            "    train(train_set = train_set, test_set = test_set)\n"
            "}\n"
            "",
    },
    {
        .code = "E0204",
        .title = "value outside an enumeration",
        .position = "the option value",
        .text =
            "The option takes one of a fixed set of strings and the value is not "
            "one of them. The help line lists the allowed values:\n"
            "- `@run_with_accelerate(mixed_precision = ...)`: `\"no\"`, `\"fp16\"`, "
            "`\"bf16\"`, `\"fp8\"`;\n"
            "- `@kubernetes(gpu_vendor = ...)`: `\"nvidia\"`, `\"amd\"`.\n"
            "\n"
            "The values are compared exactly, in lower case. They are the values "
            "of the corresponding `accelerate launch` flag, which rejects "
            "anything else through its argument parser, but only once the job "
            "has been scheduled and its container started on the GPU node. "
            "`pipec` rejects them before anything is built.",
        .wrong =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 2, multi_gpu = true, "
            "mixed_precision = \"bfloat16\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 2, multi_gpu = true, "
            "mixed_precision = \"bf16\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0205",
        .title = "malformed size",
        .position = "the option value",
        .text =
            "Sizes (`memory`, `disk`, `shm` in `@resources`) are strings made of "
            "an integer followed at once by exactly one unit: `KB`, `MB`, `GB`, "
            "`TB`, `PB` (powers of 1000) or `KiB`, `MiB`, `GiB`, `TiB`, `PiB` "
            "(powers of 1024). Units are case-sensitive. So `\"16GB\"` and "
            "`\"512MiB\"` are sizes, and these are not: `\"16G\"`, `\"16gb\"`, `\"16 "
            "GB\"`, `\" 16GB\"`, `\"1.5GB\"` (write `\"1500MB\"` or `\"1536MiB\"`), "
            "`\"-1GB\"`, `\"16000\"` (no unit). A size too large for 64 bits is also "
            "reported here.\n"
            "\n"
            "The rule is strict because every target reads abbreviated units "
            "differently. Kubernetes reads `16G` as 16 x 1000^3 bytes and `16Gi` "
            "as 16 x 1024^3; Slurm's `--mem=16G` and Docker's `--memory 16g` "
            "both mean 16 x 1024^3. The same text would ask for about 7% more or "
            "less memory depending on where the pipeline is deployed. With an "
            "explicit unit `pipec` knows the exact number of bytes and writes it "
            "in each target's own notation.",
        .wrong =
            "@resources(cpu = 4, memory = \"16G\")\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(cpu = 4, memory = \"16GB\")\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0206",
        .title = "malformed duration",
        .position = "the option value",
        .text =
            "Durations (`@timeout`, `@retry(delay)`, `@gpu_profile(interval)`, "
            "`@run_with_accelerate(rdzv_timeout)`) are strings made of an "
            "integer followed at once by one unit: `ms`, `s`, `m`, `h` or `d`. "
            "Units are lower case and there is exactly one: `\"90m\"` is a "
            "duration, and so are `\"500ms\"` and `\"2h\"`; `\"1h30m\"`, `\"1.5h\"`, `\"2 "
            "hours\"`, `\"30sec\"`, `\"2H\"` and `\"7200\"` (no unit) are not. A "
            "duration too long for 64 bits of milliseconds is also reported here.\n"
            "\n"
            "Each target wants durations in its own form: Slurm's `--time` takes "
            "`days-hours:minutes:seconds`, Kubernetes takes "
            "`activeDeadlineSeconds` as a number of seconds, the runtime counts "
            "milliseconds. `pipec` converts one unambiguous form into each of "
            "them, so it does not guess what `\"1.5\"` or `\"90\"` was meant to be.",
        .wrong =
            "@timeout(\"1h30m\")\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@timeout(\"90m\")\n"
            "step train(data_path: string) {\n"
            "    source = \"src/train.c\"\n"
            "}\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0207",
        .title = "number out of range",
        .position = "the option value",
        .text =
            "The number has the right type but is outside the range the option "
            "allows:\n"
            "- `@resources`: `cpu` > 0, `gpu` >= 0;\n"
            "- `@run_with_accelerate`: `num_processes` >= 1, `num_machines` >= "
            "1, `main_process_port` from 0 to 65535, `max_restarts` >= 0;\n"
            "- `@retry`: `max` >= 0.\n"
            "\n"
            "There are no sentinel values. In particular `@retry(max = -1)` does "
            "not mean \"retry forever\": a step that can fail forever holds a GPU "
            "node forever. Write the largest number of attempts you are willing "
            "to pay for.",
        .wrong =
            "@retry(max = -1, delay = \"30s\")\n"
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "@retry(max = 5, delay = \"30s\")\n"
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0208",
        .title = "artifact-typed pipeline parameter, or default on an artifact parameter",
        .position = "the parameter",
        .text =
            "Artifacts are produced by steps, never given from outside. That "
            "rules out two things:\n"
            "- a pipeline parameter of an artifact type: pipeline parameters are "
            "plain values that can be overridden when the pipeline is launched, "
            "and a dataset is not a value anyone can type in at launch time;\n"
            "- a default value on a step's artifact parameter: the default would "
            "be a string or a number, not an artifact, and an input that may "
            "silently fall back to a constant is not a tracked input.\n"
            "\n"
            "To feed external data in, make the pipeline parameter a `string` "
            "path (or URI) and add a step that reads it and outputs the "
            "artifact, as in the corrected example. The loading step's output is "
            "then versioned and cached like any other artifact.",
        .wrong =
            "step train(data: dataset, epochs: int = 10) { source = "
            "\"src/train.c\" }\n"
            "\n"
            "pipeline training(data: dataset) {\n"
            "    train(data = data)\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset, epochs: int = 10) { source = "
            "\"src/train.c\" }\n"
            "\n"
            "pipeline training(data_path: string = \"data/train.csv\") {\n"
            "    ds = load(path = data_path)\n"
            "    train(data = ds)\n"
            "}\n"
            "",
    },
    {
        .code = "E0301",
        .title = "`run_with_accelerate` used as a function",
        .position = "`run_with_accelerate` in the call",
        .text =
            "`run_with_accelerate` is a decorator: it is written "
            "`@run_with_accelerate(...)` in front of a step declaration. Here it "
            "is called like a function inside a pipeline, to wrap a step at the "
            "call site: `run_with_accelerate(train, num_processes = 4)(...)`.\n"
            "\n"
            "That is the style ZenML's first Accelerate integration documented, "
            "and ZenML later forbade it: current releases raise `RuntimeError` "
            "(\"decorator cannot be used in a functional way with steps, please "
            "apply decoration directly to a step instead\") when the pipeline is "
            "run. `pipec` rejects it for the same underlying reason: how a step "
            "is launched is a property of the step, not of one call. The "
            "generated driver, the container entrypoint, the resources requested "
            "from the scheduler and the rendezvous settings all follow from it, "
            "and all of them are fixed before the pipeline runs.\n"
            "\n"
            "Move the options onto the step as a decorator and call the step "
            "like any other, with keyword arguments (E0303).",
        .wrong =
            "@resources(gpu = 4)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    run_with_accelerate(train, num_processes = 4, multi_gpu = "
            "true)(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 4)\n"
            "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0302",
        .title = "step wrapped twice by `@run_with_accelerate`",
        .position = "the second `@run_with_accelerate`",
        .text =
            "A step carries `@run_with_accelerate` twice. Wrapping means \"start "
            "this step through `accelerate launch`\"; wrapping twice would start "
            "a launcher inside each launched process: `num_processes` x "
            "`num_processes` ranks, all competing for the same GPUs and the same "
            "rendezvous port, and a job that hangs or dies with CUDA "
            "out-of-memory errors.\n"
            "\n"
            "Options of two decorators are not merged either. Put every option "
            "into one `@run_with_accelerate`. (Any other decorator given twice "
            "is E0105.)",
        .wrong =
            "@resources(gpu = 4)\n"
            "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
            "@run_with_accelerate(mixed_precision = \"bf16\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 4)\n"
            "@run_with_accelerate(num_processes = 4, multi_gpu = true, "
            "mixed_precision = \"bf16\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0303",
        .title = "positional argument in a call to an accelerated step",
        .position = "the first positional argument",
        .text =
            "A step decorated with `@run_with_accelerate` was called with a "
            "positional argument. Accelerated steps take keyword arguments only.\n"
            "\n"
            "The reason is how they run: `accelerate launch` starts each rank as "
            "a new process and hands it the step's inputs as named command-line "
            "options (`--data_path data/train.csv`). An argument without a name "
            "has nothing to travel under. ZenML has the same restriction and "
            "enforces it late: its wrapper raises `ValueError: Accelerated steps "
            "do not support positional arguments.` when the step starts, which "
            "is after the pipeline was compiled, the image built and the GPU "
            "machines provisioned. `pipec` passes the arguments to every rank "
            "the same way, so it insists on names here.\n"
            "\n"
            "Give every argument its parameter name. For steps that are not "
            "accelerated, positional arguments remain allowed, but names are "
            "still clearer.",
        .wrong =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 2, multi_gpu = true)\n"
            "step train(data_path: string, epochs: int = 10) { source = "
            "\"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(\"data/train.csv\", epochs = 5)\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 2, multi_gpu = true)\n"
            "step train(data_path: string, epochs: int = 10) { source = "
            "\"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\", epochs = 5)\n"
            "}\n"
            "",
    },
    {
        .code = "E0304",
        .title = "`cpu = true` together with `multi_gpu = true`",
        .position = "the `cpu` option",
        .text =
            "`cpu = true` tells `accelerate launch` to run on the CPU only, even "
            "when GPUs are present; `multi_gpu = true` tells it to run one "
            "process per GPU with distributed data parallelism. The two ask for "
            "opposite things. Whichever one the launcher honours, half of the "
            "configuration is silently ignored: either the job takes GPU nodes "
            "and leaves the GPUs idle, or it expects GPUs the CPU configuration "
            "never asked for.\n"
            "\n"
            "Decide where the step runs:\n"
            "- on GPUs: drop `cpu = true`, keep `multi_gpu = true` and request "
            "the GPUs with `@resources(gpu = N)`, as in the corrected example;\n"
            "- on CPUs: drop `multi_gpu = true`; `num_processes` then counts CPU "
            "worker processes.",
        .wrong =
            "@resources(gpu = 4)\n"
            "@run_with_accelerate(num_processes = 4, multi_gpu = true, cpu = "
            "true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 4)\n"
            "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0305",
        .title = "too few GPUs per machine for `multi_gpu`",
        .position = "the `num_processes` option",
        .text =
            "With `multi_gpu = true`, `accelerate launch` starts one process per "
            "GPU. `num_processes` counts the processes on all machines together, "
            "so each machine runs `num_processes / num_machines` of them, and "
            "`@resources(gpu = N)` (which describes one machine) must give at "
            "least that many GPUs. The error is also reported when the step has "
            "`multi_gpu = true` but no GPU at all (`gpu` is 0 or not set, on the "
            "step or its pipeline).\n"
            "\n"
            "With fewer GPUs than processes, ranks end up sharing a device or "
            "addressing one that does not exist. At run time that shows up as "
            "NCCL's \"Duplicate GPU detected\" error, as `invalid device ordinal`, "
            "or as out-of-memory errors, each only after the machines have been "
            "allocated and the image pulled.\n"
            "\n"
            "Request enough GPUs (corrected example), or lower `num_processes` "
            "to match the GPUs you have.",
        .wrong =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 4)\n"
            "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0306",
        .title = "`fp16` or `fp8` mixed precision on the CPU",
        .position = "the `mixed_precision` option",
        .text =
            "The step runs on the CPU (`cpu = true`) and asks for `\"fp16\"` or "
            "`\"fp8\"` mixed precision. Both need a GPU: fp16 autocasting with "
            "loss scaling is a CUDA feature (Accelerate fails with \"fp16 mixed "
            "precision requires a GPU\"), and fp8 needs recent NVIDIA GPUs "
            "(Hopper or Ada) and their libraries.\n"
            "\n"
            "On the CPU the only mixed precision that works is `\"bf16\"`, on "
            "processors with bfloat16 support; otherwise use `\"no\"`. If the step "
            "was meant to run on GPUs, remove `cpu = true` and request GPUs with "
            "`@resources(gpu = N)` instead.",
        .wrong =
            "@resources(cpu = 16)\n"
            "@run_with_accelerate(num_processes = 4, cpu = true, mixed_precision "
            "= \"fp16\")\n"
            "step train(data_path: string) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(cpu = 16)\n"
            "@run_with_accelerate(num_processes = 4, cpu = true, mixed_precision "
            "= \"bf16\")\n"
            "step train(data_path: string) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0307",
        .title = "`num_processes` not a multiple of `num_machines`",
        .position = "the `num_processes` option",
        .text =
            "`num_processes` counts the processes on all machines together (as "
            "it does for `accelerate launch`), and every machine runs the same "
            "number of them, so it must be a multiple of `num_machines`. With 6 "
            "processes on 4 machines there is no even split: the launcher gives "
            "each machine `6 / 4 = 1` process, rounded down, and the job "
            "silently runs 4 ranks instead of 6, with another global batch size "
            "and learning-rate schedule than the ones you configured.\n"
            "\n"
            "Choose `num_processes = num_machines x processes per machine`. With "
            "`multi_gpu = true` the processes per machine is usually the GPU "
            "count in `@resources`, which describes one machine: 4 machines with "
            "2 GPUs each is `num_processes = 8`.",
        .wrong =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 6, num_machines = 4, multi_gpu "
            "= true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 8, num_machines = 4, multi_gpu "
            "= true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0308",
        .title = "step invoked inside an argument",
        .position = "the call",
        .text =
            "A step call appears as the argument of another call. Each pipeline "
            "statement invokes exactly one step, and its outputs get names "
            "through targets: `ds = load(...)` and then `train(data = ds)`.\n"
            "\n"
            "In Python pipelines nesting is legal because the pipeline is just "
            "code, but it hides a node of the graph. In a `.pipe` file every "
            "invocation has a stable id (`load`, `load_2`, ...) that names its "
            "job, its logs, its cache entry and its outputs, and every artifact "
            "has a name that appears in the manifests. A nested call has neither "
            "a statement of its own nor a name for its output. Bind the inner "
            "call's outputs to names first, then pass the names.",
        .wrong =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    train(data = load(path = \"data/train.csv\"))\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    train(data = ds)\n"
            "}\n"
            "",
    },
    {
        .code = "E0309",
        .title = "`multi_gpu = true` with fewer than 2 processes",
        .position = "the `multi_gpu` option",
        .text =
            "`multi_gpu = true` launches distributed data-parallel training, one "
            "process per GPU, and needs at least two processes. `num_processes` "
            "defaults to 1, so `@run_with_accelerate(multi_gpu = true)` alone "
            "asks for a multi-GPU run with a single process, which `accelerate "
            "launch` refuses with `ValueError: You need to use at least 2 "
            "processes to use --multi_gpu.`, but only once the job has started "
            "on the machines it reserved.\n"
            "\n"
            "Set `num_processes` to the total number of GPUs the step uses (on "
            "all machines together), as in the corrected example. If the step "
            "really uses one GPU, remove `multi_gpu = true`: a single-process "
            "run on one GPU needs no distributed setup.",
        .wrong =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(multi_gpu = true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 2, multi_gpu = true)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0310",
        .title = "`main_process_port = 0` with several machines",
        .position = "the `main_process_port` option",
        .text =
            "`main_process_port = 0` lets the main process pick any free port "
            "when it starts. That only works when every process runs on the same "
            "machine and can learn the port locally. With `num_machines > 1` the "
            "other machines must connect to the main process at an address and "
            "port they know before it starts; there is nothing to tell them "
            "which port was picked, and they would wait at the rendezvous until "
            "it times out.\n"
            "\n"
            "Use a fixed port (the default is 29500) that is open between the "
            "machines, or run on one machine.",
        .wrong =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 4, num_machines = 2, multi_gpu "
            "= true, main_process_port = 0)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 2)\n"
            "@run_with_accelerate(num_processes = 4, num_machines = 2, multi_gpu "
            "= true, main_process_port = 29500)\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "E0401",
        .title = "GPU counts in `@resources` and `@skypilot` disagree",
        .position = "the `gpu` option or `accelerators`",
        .text =
            "The step gives its GPU count twice: `@resources(gpu = N)` and "
            "`@skypilot(accelerators = \"NAME:M\")`, and N is not M. Both describe "
            "one machine. `@resources` drives the Slurm, Kubernetes and Docker "
            "outputs, and `accelerators` the SkyPilot task, so the same pipeline "
            "would get a different number of GPUs depending on where it is "
            "deployed, and the launch configuration (for example the processes "
            "per machine of an accelerated step) can only match one of them.\n"
            "\n"
            "Make the two counts agree, as in the corrected example. The GPU "
            "model in `accelerators` should also name the same GPU as `gpu_type`.",
        .wrong =
            "@resources(gpu = 2, gpu_type = \"A100\")\n"
            "@skypilot(cloud = \"aws\", accelerators = \"A100:4\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 2, gpu_type = \"A100\")\n"
            "@skypilot(cloud = \"aws\", accelerators = \"A100:2\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "W0401",
        .title = "GPU step in an image without CUDA",
        .position = "the `parent_image` value",
        .text =
            "The step needs a GPU (its effective `gpu` is above 0, or it is "
            "accelerated with `multi_gpu = true`), but the image it runs in does "
            "not look CUDA-enabled. When the bundle targets containers and no "
            "image is set at all, the warning is reported too.\n"
            "\n"
            "A container without the CUDA user-space libraries starts normally "
            "on a GPU node and then fails at the first CUDA call (`libcudart.so` "
            "not found, or \"no CUDA-capable device is detected\"). By then the "
            "scheduler has allocated the GPU node and pulled the image; on a "
            "busy cluster that can be hours after submission.\n"
            "\n"
            "`pipec` recognises a CUDA image by its name: `nvidia/cuda:...`, "
            "`nvcr.io/nvidia/...`, or a tag that contains `cuda` or ends in "
            "`-gpu`. Use such a base image. If your own image does contain CUDA, "
            "tag it so that the name says so (for example "
            "`myorg/trainer:1.4-cuda12.4`), which also tells the people who read "
            "the manifests. `-Werror` turns this warning into an error.",
        .wrong =
            "@resources(gpu = 1)\n"
            "@docker(parent_image = \"python:3.11-slim\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 1)\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "W0402",
        .title = "CUDA versions of `build_image` and `parent_image` differ",
        .position = "the `build_image` value",
        .text =
            "`build_image` is the image in which the generated Dockerfile "
            "compiles the step (with `nvcc` for `.cu` sources); `parent_image` "
            "is the image it runs in. Their CUDA versions differ, so the program "
            "is run against other CUDA libraries than the ones it was built and "
            "tested with.\n"
            "\n"
            "Built with a newer toolkit than the runtime image, the program can "
            "fail to start (a `libcudart` or `libcublas` of the required version "
            "is missing) or stop with \"CUDA driver version is insufficient for "
            "CUDA runtime version\". Built with an older one, it usually runs "
            "within the same major version thanks to CUDA's minor-version "
            "compatibility, but across major versions (11 and 12) the libraries "
            "have different names and it does not. It is a warning rather than "
            "an error because some combinations work; none of them is worth "
            "relying on.\n"
            "\n"
            "The simplest fix is to leave `build_image` out: by default it is "
            "derived from `parent_image`, with `-runtime` replaced by `-devel`, "
            "which gives the same CUDA version by construction. Otherwise make "
            "the two versions equal, as in the corrected example.",
        .wrong =
            "@resources(gpu = 1)\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\",\n"
            "        build_image = \"nvidia/cuda:12.1.0-devel-ubuntu22.04\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
        .right =
            "@resources(gpu = 1)\n"
            "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\",\n"
            "        build_image = \"nvidia/cuda:12.4.1-devel-ubuntu22.04\")\n"
            "step train(data_path: string) { source = \"src/train.cu\" }\n"
            "\n"
            "pipeline training() {\n"
            "    train(data_path = \"data/train.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "W0403",
        .title = "`@cleanup_memory` or `@gpu_profile` on a step that uses no GPU",
        .position = "the decorator name",
        .text =
            "`@cleanup_memory` releases the CUDA memory caches when the step "
            "starts, and `@gpu_profile` samples GPU utilisation and memory while "
            "it runs. The step they are on uses no GPU (its effective `gpu` is 0 "
            "and it is not accelerated with `multi_gpu = true`), so they would "
            "do nothing.\n"
            "\n"
            "The decorator itself is harmless, but it is often the visible "
            "symptom of a real mistake: the step was meant to have a GPU and its "
            "`@resources(gpu = N)` is missing, or was inherited from a pipeline "
            "default that has since changed. Check the step's resources first. "
            "If it really runs on the CPU, remove the decorator. If you put one "
            "of these decorators on a pipeline so that its GPU steps get it, put "
            "it on those steps instead.",
        .wrong =
            "@cleanup_memory\n"
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
        .right =
            "step report(path: string) {\n"
            "    source = \"src/report.c\"\n"
            "}\n"
            "\n"
            "pipeline daily() {\n"
            "    report(path = \"data/today.csv\")\n"
            "}\n"
            "",
    },
    {
        .code = "W0404",
        .title = "output bound but never used",
        .position = "the target",
        .text =
            "A statement binds a step output to a name, and no later statement "
            "uses that name. The artifact is still computed, written, uploaded "
            "to the artifact store and kept, but nothing in the pipeline reads "
            "it.\n"
            "\n"
            "Often a step was forgotten, as in the example, where the test split "
            "is produced and never evaluated. Otherwise the step does more than "
            "this pipeline needs. Because targets must bind every output of a "
            "step (E0203), the warning cannot be silenced by leaving the name "
            "out; if the output is never needed, consider removing it from the "
            "step. `-Werror` turns this warning into an error.",
        .wrong =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step split(data: dataset) -> (train_set: dataset, test_set: "
            "dataset) { source = \"src/split.c\" }\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/all.csv\")\n"
            "    (train_set, test_set) = split(data = ds)\n"
            "    train(data = train_set)\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step split(data: dataset) -> (train_set: dataset, test_set: "
            "dataset) { source = \"src/split.c\" }\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "step evaluate(data: dataset) { source = \"src/evaluate.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/all.csv\")\n"
            "    (train_set, test_set) = split(data = ds)\n"
            "    train(data = train_set)\n"
            "    evaluate(data = test_set)\n"
            "}\n"
            "",
    },
    {
        .code = "W0405",
        .title = "step declared but never invoked",
        .position = "the step name",
        .text =
            "A step is declared in this file, but no pipeline in this file "
            "invokes it, so it is not part of any bundle `pipec` builds and "
            "nothing will ever run it.\n"
            "\n"
            "Usually a statement is missing (the corrected example adds it) or "
            "the step is left over from an earlier version of the pipeline and "
            "can be deleted. Steps that several pipelines share belong in a "
            "separate file that those pipelines `import`: steps that come from "
            "imported files are not reported here.",
        .wrong =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "step evaluate(data: dataset) { source = \"src/evaluate.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    train(data = ds)\n"
            "}\n"
            "",
        .right =
            "step load(path: string) -> ds: dataset { source = \"src/load.c\" }\n"
            "step train(data: dataset) { source = \"src/train.c\" }\n"
            "step evaluate(data: dataset) { source = \"src/evaluate.c\" }\n"
            "\n"
            "pipeline training() {\n"
            "    ds = load(path = \"data/train.csv\")\n"
            "    train(data = ds)\n"
            "    evaluate(data = ds)\n"
            "}\n"
            "",
    },
};

#define ENTRY_COUNT (sizeof(entries) / sizeof(entries[0]))
#define WRAP_WIDTH 78

static int ascii_upper(int c)
{
    return (c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c;
}

const explain_entry *explain_lookup(const char *code)
{
    if (!code)
        return NULL;
    for (size_t i = 0; i < ENTRY_COUNT; i++) {
        const char *a = entries[i].code, *b = code;
        while (*a && ascii_upper((unsigned char)*b) == *a) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0')
            return &entries[i];
    }
    return NULL;
}

size_t explain_count(void)
{
    return ENTRY_COUNT;
}

const explain_entry *explain_at(size_t i)
{
    return i < ENTRY_COUNT ? &entries[i] : NULL;
}

static const char *severity(const explain_entry *e)
{
    return e->code[0] == 'W' ? "warning" : "error";
}

/* Word-wraps one paragraph line; "- " items get a hanging indent so the
 * list stays readable in a terminal. Words longer than the width are
 * printed whole rather than split. */
static void print_wrapped_line(const char *line, size_t len, FILE *out)
{
    int hang = (len >= 2 && line[0] == '-' && line[1] == ' ') ? 2 : 0;
    size_t col = 0;
    int line_start = 1;
    size_t i = 0;
    for (;;) {
        while (i < len && line[i] == ' ')
            i++;
        if (i == len)
            break;
        size_t start = i;
        while (i < len && line[i] != ' ')
            i++;
        size_t wlen = i - start;
        if (!line_start && col + 1 + wlen > WRAP_WIDTH) {
            fprintf(out, "\n%*s", hang, "");
            col = (size_t)hang;
            line_start = 1;
        }
        if (!line_start) {
            fputc(' ', out);
            col++;
        }
        fwrite(line + start, 1, wlen, out);
        col += wlen;
        line_start = 0;
    }
    fputc('\n', out);
}

static void print_wrapped(const char *text, FILE *out)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        print_wrapped_line(text, len, out);
        text += len;
        if (*text == '\n')
            text++;
    }
}

static void print_indented(const char *snippet, const char *indent, FILE *out)
{
    while (*snippet) {
        const char *nl = strchr(snippet, '\n');
        size_t len = nl ? (size_t)(nl - snippet) : strlen(snippet);
        if (len > 0)
            fputs(indent, out);
        fwrite(snippet, 1, len, out);
        fputc('\n', out);
        snippet += len;
        if (*snippet == '\n')
            snippet++;
    }
}

void explain_print(const explain_entry *e, FILE *out)
{
    fprintf(out, "%s[%s]: %s\n\n", severity(e), e->code, e->title);
    print_wrapped(e->text, out);
    fputs("\nWrong:\n\n", out);
    print_indented(e->wrong, "    ", out);
    fputs("\nRight:\n\n", out);
    print_indented(e->right, "    ", out);
}

void explain_write_markdown(FILE *out)
{
    fputs("# Diagnostics reference\n\n"
          "<!-- Generated from compiler/explain.c by explain_write_markdown(). "
          "Do not edit by hand. -->\n\n"
          "Every diagnostic `pipec` reports has a code. `pipec explain CODE` "
          "prints the same text as this page. The primary position is where "
          "`FILE:LINE:COL` points (language reference, section 6).\n\n"
          "| code | severity | title | primary position |\n"
          "|---|---|---|---|\n",
          out);
    for (size_t i = 0; i < ENTRY_COUNT; i++) {
        const explain_entry *e = &entries[i];
        fprintf(out, "| %s | %s | %s | %s |\n", e->code, severity(e), e->title,
                e->position);
    }
    for (size_t i = 0; i < ENTRY_COUNT; i++) {
        const explain_entry *e = &entries[i];
        fprintf(out, "\n## %s\n\n%s[%s]: %s\n\nPrimary position: %s.\n\n%s\n",
                e->code, severity(e), e->code, e->title, e->position, e->text);
        fprintf(out, "\nWrong:\n\n```\n%s```\n\nRight:\n\n```\n%s```\n", e->wrong,
                e->right);
    }
}
