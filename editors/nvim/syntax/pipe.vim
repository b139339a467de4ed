" Vim syntax for .pipe files (the same words as editors/pipe.tmLanguage.json).
if exists("b:current_syntax")
  finish
endif
syntax keyword pipeKeyword step pipeline import nextgroup=pipeName skipwhite
syntax match pipeName /\h\w*/ contained
syntax keyword pipeBoolean true false
syntax match pipeDecorator /@\h\w*/
syntax match pipeNumber /-\?\<\d\+\(\.\d\+\)\?\([eE][+-]\?\d\+\)\?\>/
syntax match pipeType /:\s*\zs\h\w*/
syntax match pipeArrow /->/
syntax match pipePlaceholder /{\h\w*}/ contained
syntax match pipeEscape /\\.\|{{\|}}/ contained
syntax region pipeString start=/"/ skip=/\\./ end=/"\|$/ contains=pipePlaceholder,pipeEscape oneline
syntax match pipeComment /#.*$/
highlight default link pipeKeyword Keyword
highlight default link pipeName Function
highlight default link pipeBoolean Boolean
highlight default link pipeDecorator PreProc
highlight default link pipeNumber Number
highlight default link pipeType Type
highlight default link pipeArrow Operator
highlight default link pipePlaceholder Special
highlight default link pipeEscape SpecialChar
highlight default link pipeString String
highlight default link pipeComment Comment
let b:current_syntax = "pipe"
