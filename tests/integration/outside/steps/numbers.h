/* Shared by the two steps: the most numbers a file may hold. */
#ifndef NUMBERS_H
#define NUMBERS_H

#define NUMBERS_MAX 1000000

#endif
