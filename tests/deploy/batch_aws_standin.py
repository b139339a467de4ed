"""A stand-in for the AWS CLI (`aws`) in batch_validate.sh: records each
call (its arguments, and the text of every file:// argument as it was when
called) as a JSON line in $BATCH_AWS_LOG, and answers what submit.sh asks:
no registered definition, a definition ARN, a job id."""
import json
import os
import sys


def main():
    argv = sys.argv[1:]
    files = {}
    for a in argv:
        if a.startswith("file://"):
            with open(a[len("file://"):], encoding="utf-8") as f:
                files[a] = f.read()
    with open(os.environ["BATCH_AWS_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"argv": argv, "files": files}) + "\n")
    if argv[:2] == ["batch", "describe-job-definitions"]:
        print("None")
    elif argv[:2] == ["batch", "register-job-definition"]:
        path = argv[argv.index("--cli-input-json") + 1][len("file://"):]
        with open(path, encoding="utf-8") as f:
            name = json.load(f)["jobDefinitionName"]
        print(f"arn:aws:batch:us-east-1:123456789012:job-definition/{name}:1")
    elif argv[:2] == ["batch", "submit-job"]:
        name = argv[argv.index("--job-name") + 1]
        print(f"job-{name}")
    else:
        print(f"aws stand-in: unexpected call {argv}", file=sys.stderr)
        sys.exit(3)


main()
