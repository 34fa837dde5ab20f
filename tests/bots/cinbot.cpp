// A bot as C++ users of the ICGA framework wrote them: it reads tokens (std::cin >> word), not lines, and answers
// with std::cout << ... << std::endl (which flushes).  Token reading needs every line to have the fields the
// framework's page gives it (/start MJ <pos> <AIPath> is four tokens, always); the tiles of /initCard (16, or 17
// for the dealer) are read to the end of their line.  It throws the tile it drew, passes claims, wins when asked.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main() {
    std::string word;
    std::vector<int> hand;
    int me = 0, last = -1;
    while (std::cin >> word) {
        if (word == "/start") {
            std::string mj, path;
            std::cin >> mj >> me >> path;
            hand.clear();
        } else if (word == "/initGame") {
            std::string wind, game;
            int open, dealer, cont;
            std::cin >> wind >> game >> open >> dealer >> cont;
        } else if (word == "/initCard") {
            std::string rest;
            std::getline(std::cin, rest);
            int t, k;
            for (const char *p = rest.c_str(); std::sscanf(p, " %d%n", &t, &k) == 1; p += k) hand.push_back(t);
            last = hand.back();
        } else if (word == "/mo") {
            std::cin >> last;
            hand.push_back(last);
        } else if (word == "/ask") {
            std::string what;
            std::cin >> what;
            if (what == "throw") {
                bool held = std::find(hand.begin(), hand.end(), last) != hand.end();
                std::cout << "/throw " << (held ? last : hand.back()) << std::endl;
            } else if (what == "hu") {
                std::cout << "/hu" << std::endl;
            } else {
                std::cout << "/pass" << std::endl;
            }
        } else if (word == "/throw") {
            int pos, t;
            std::cin >> pos >> t;
            auto it = std::find(hand.begin(), hand.end(), t);
            if (pos == me && it != hand.end()) hand.erase(it);
        } else if (word == "/exit") {
            return 0;
        } else {  // a line it has no use for (/eat, /pong, /gong, /hu): skip the rest of it
            std::string rest;
            std::getline(std::cin, rest);
        }
    }
}
