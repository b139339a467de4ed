#include "embedded.h"

#include <string.h>

const embedded_file *embedded_find(const embedded_file *table, const char *path)
{
    for (; table->path; table++)
        if (strcmp(table->path, path) == 0)
            return table;
    return NULL;
}
