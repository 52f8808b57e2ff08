/* Run one TestU01 battery on little-endian 32-bit words read from stdin.
 *
 *   testu01_stdin smallcrush|crush|bigcrush NAME
 *
 * Built and fed by tools/raw_words.py (--battery smallcrush and the rest).
 * TestU01 (L'Ecuyer and Simard, https://simul.iro.umontreal.ca/testu01/)
 * calls next_word once per 32-bit draw; the words come from a buffer
 * refilled from stdin.  The process exits with status 3 if stdin ends
 * before the battery does, so a short input never passes silently.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TestU01.h"

enum { BUFFER_WORDS = 1 << 16 };

static unsigned int buffer[BUFFER_WORDS];
static size_t filled = 0;
static size_t next = 0;

static unsigned int next_word(void)
{
    if (next == filled) {
        filled = fread(buffer, sizeof buffer[0], BUFFER_WORDS, stdin);
        next = 0;
        if (filled == 0) {
            fprintf(stderr, "testu01_stdin: stdin ended before the battery\n");
            exit(3);
        }
    }
    return buffer[next++];
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: testu01_stdin smallcrush|crush|bigcrush NAME\n");
        return 2;
    }
    unif01_Gen *gen = unif01_CreateExternGenBits(argv[2], next_word);
    if (strcmp(argv[1], "smallcrush") == 0) {
        bbattery_SmallCrush(gen);
    } else if (strcmp(argv[1], "crush") == 0) {
        bbattery_Crush(gen);
    } else if (strcmp(argv[1], "bigcrush") == 0) {
        bbattery_BigCrush(gen);
    } else {
        fprintf(stderr, "testu01_stdin: unknown battery %s\n", argv[1]);
        return 2;
    }
    unif01_DeleteExternGenBits(gen);
    return 0;
}
