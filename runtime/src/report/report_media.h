/* Images and tables a step logged (the Python module's pipe.log_image and
   pipe.log_table) for the report (report.c): each invocation's
   media/index.jsonl, one JSON object a line,

     {"kind": "image", "name": N, "step": INT|null, "file": "images/F.png", "time_s": S}
     {"kind": "table", "name": N, "step": INT|null, "file": "tables/F.json", "time_s": S}

   Every byte is untrusted: names and cells are escaped, a file name is
   images/ or tables/ and [A-Za-z0-9_.-], an image is embedded as a data:
   URI only when its bytes start as its extension says (PNG or JPEG), and
   nothing is fetched. Private to the runtime. */
#ifndef PIPE_REPORT_MEDIA_H
#define PIPE_REPORT_MEDIA_H

#include "view/run_view.h"
#include "util/textbuf.h"

/* The folder whose media/ an invocation shows (malloc'ed): its own, or
   for a cached one the original's; NULL when out of memory. */
char *pipe_report_media_dir(const pipe_run_view *v, const pipe_view_invocation *inv);

/* Whether the invocation has a media/index.jsonl. */
bool pipe_report_has_media(const pipe_run_view *v, const pipe_view_invocation *inv);

/* Appends the invocation's images and tables (a <div class="media">), or
   nothing when it logged none. */
void pipe_report_media(pipe_textbuf *b, const pipe_run_view *v, const pipe_view_invocation *inv);

/* Appends the "Images and tables" section of the run: nothing when no
   invocation logged any. */
void pipe_report_media_section(pipe_textbuf *b, const pipe_run_view *v);

#endif
