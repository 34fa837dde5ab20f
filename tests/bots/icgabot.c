/* A bot as users of the ICGA framework wrote them in C (fgets, sscanf, printf), with one habit of theirs per mode
 * (argv[1]), to check that mjref referees each habit as the framework did or says exactly what to change.
 * It plays like the framework's dummy: throws the tile it drew, passes every claim, wins when asked; in its
 * default mode it is also the suite's fast-starting C bot (the ``cbot`` fixture, tests/conftest.py).
 *
 *   flush    printf + fflush after each answer (the default)     unbuf   setvbuf(stdout, NULL, _IONBF, 0)
 *   nobuf    printf and no flush: stdout stays fully buffered    banner  a line on stdout at start
 *   debug    a debugging line on stdout before each answer       zeros   tiles as %04d (0112)
 *   crlf     answers end in \r\n                                  blanks  blanks and tabs around and between fields
 *   stderr   200 lines on stderr per answer                      nostart ignores /start (learns nothing from it)
 *   stay     does not exit at /exit (waits for end of input)     status  exits with status 1 at /exit
 *   empty    an empty line after each answer (puts("") for good measure)
 *   table    opens its table icgabot.dat from the working folder first, and exits with status 2 without it
 *   slow     takes 2 s to start (a JVM loading a model), then answers at once */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *mode = "flush";
static int hand[32], n = 0, last = -1, me = 0;

static int is(const char *m) { return strcmp(mode, m) == 0; }
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

/* One answer: cmd alone (t < 0) or with a tile, written the way this mode writes it. */
static void say(const char *cmd, int t) {
    if (is("debug")) printf("debug: %d tiles in hand\n", n);
    if (t < 0) printf(is("crlf") ? "%s\r\n" : is("blanks") ? "  %s \t \n" : "%s\n", cmd);
    else if (is("crlf")) printf("%s %d\r\n", cmd, t);
    else if (is("blanks")) printf("\t%s  \t %d  \n", cmd, t);
    else if (is("zeros")) printf("%s %04d\n", cmd, t);
    else printf("%s %d\n", cmd, t);
    if (is("empty")) puts("");
    if (!is("nobuf") && !is("unbuf")) fflush(stdout);
    if (is("stderr"))
        for (int i = 0; i < 200; i++) fprintf(stderr, "thinking about tile %d, step %d ......................\n", t, i);
}

int main(int argc, char **argv) {
    char line[4096];
    if (argc > 1) mode = argv[1];
    if (is("unbuf")) setvbuf(stdout, NULL, _IONBF, 0);
    if (is("slow")) sleep(2);
    if (is("banner")) { printf("icgabot 1.0 ready\n"); fflush(stdout); }
    if (is("table")) {
        FILE *f = fopen("icgabot.dat", "r");
        if (f == NULL) { perror("icgabot.dat"); return 2; }
        fclose(f);
    }
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "/start MJ", 9)) {
            if (!is("nostart")) sscanf(line, "/start MJ %d", &me);
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
            say("/throw", (last >= 0 && holds(last)) ? last : hand[n - 1]);
        } else if (!strncmp(line, "/ask hu", 7)) {
            say("/hu", -1);
        } else if (!strncmp(line, "/ask", 4)) {
            say("/pass", -1);
        } else if (!strncmp(line, "/throw ", 7)) {
            int p, t;  /* without its position (nostart), any throw of a tile it holds is taken as its own */
            if (sscanf(line + 7, "%d %d", &p, &t) == 2 && (p == me || me == 0) && holds(t)) { rem(t); last = -1; }
        } else if (!strncmp(line, "/exit", 5)) {
            if (is("stay")) continue;
            return is("status") ? 1 : 0;
        }
    }
    return 0;
}
