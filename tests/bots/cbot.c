/* A bot in the style of the ICGA framework's own C bots: read lines from stdin, answer each /ask with one
 * flushed line, exit on /exit.  It plays like the framework's dummy: throws the tile it drew, passes every
 * claim, and wins when asked.  Used by tests/test_cbot.py to show such bots run unchanged under mjref. */
#include <stdio.h>
#include <string.h>

static int hand[32], n = 0, last = -1, me = 0;

static void add(int t) { if (n < 32) hand[n++] = t; }
static void rem(int t) {
    for (int i = 0; i < n; i++)
        if (hand[i] == t) { hand[i] = hand[--n]; return; }
}
static int holds(int t) {
    for (int i = 0; i < n; i++)
        if (hand[i] == t) return 1;
    return 0;
}

int main(void) {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "/start MJ", 9)) {
            sscanf(line, "/start MJ %d", &me);
            n = 0;
            last = -1;
        } else if (!strncmp(line, "/initCard", 9)) {
            char *p = line + 9;
            int t, k;
            while (sscanf(p, " %d%n", &t, &k) == 1) { add(t); p += k; }
            last = n ? hand[n - 1] : -1;
        } else if (!strncmp(line, "/mo ", 4)) {
            int t;
            if (sscanf(line + 4, "%d", &t) == 1) { add(t); last = t; }
        } else if (!strncmp(line, "/ask throw", 10)) {
            int t = (last >= 0 && holds(last)) ? last : hand[n - 1];
            printf("/throw %d\n", t);
            fflush(stdout);
        } else if (!strncmp(line, "/ask hu", 7)) {
            printf("/hu\n");
            fflush(stdout);
        } else if (!strncmp(line, "/ask", 4)) {
            printf("/pass\n");
            fflush(stdout);
        } else if (!strncmp(line, "/throw ", 7)) {
            int p, t;
            if (sscanf(line + 7, "%d %d", &p, &t) == 2 && p == me) { rem(t); last = -1; }
        } else if (!strncmp(line, "/exit", 5)) {
            return 0;
        }
    }
    return 0;
}
