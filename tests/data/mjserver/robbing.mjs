Player 1 Robot(5259)
Player 2 Robot(5260)
Player 3 Robot(5261)
Player 4 Robot(5262)
Game 1 2 3 4 E 0 1 0 0 0 0 1110 0
GameOption 0 Timeout nat 0 1 15 time limit for claims
GameOption 0 TimeoutGrace nat 0 1 5 grace period when clients handle timeouts
GameOption 0 ScoreLimit nat 0 1 500 limit on hand score
GameOption 0 NoLimit bool 0 1 0 no-limit game
GameOption 0 MahJongScore score 0 1 10 base score for going out
GameOption 0 SevenPairs bool 1020 1 1 seven pairs hand allowed
GameOption 0 SevenPairsVal score 1020 1 10010 score for a seven pair hand
GameOption 0 Flowers bool 1020 1 1 play using flowers and seasons
GameOption 0 FlowersLoose bool 0 1 0 flowers replaced by loose tiles
GameOption 0 FlowersOwnEach score 0 1 4 score for each own flower or season
GameOption 0 FlowersOwnBoth score 0 1 10000 score for own flower and own season
GameOption 0 FlowersBouquet score 0 1 10000 score for all four flowers or all four seasons
GameOption 0 DeadWall bool 1020 1 1 there is a dead wall
GameOption 0 DeadWall16 bool 1020 1 0 dead wall is 16 tiles, unreplenished
GameOption 0 ConcealedFully score 0 1 10000 score for fully concealed hand
GameOption 0 ConcealedAlmost score 0 1 10000 score for almost concealed hand
GameOption 0 LosersPurity bool 0 1 0 losing hands score doubles for pure, concealed etc.
GameOption 0 KongHas3Types bool 1034 1 0 claimed kongs count as concealed for doubling
GameOption 0 EastDoubles bool 0 1 1 east pays and receives double
GameOption 0 LosersSettle bool 0 1 1 losers pay each other
GameOption 0 DiscDoubles bool 0 1 0 the discarder pays double
GameOption 0 ShowOnWashout bool 0 1 0 tiles revealed on washout
GameOption 0 NumRounds nat 0 1 2 number of rounds to play
GameOption 0 End bool 0 1 1 end of option list
Wall RD 3D 5D 1B 1D SW 6C 7C 7B 3C 2S 9C 1C 4B 9B 1D 2F 7D 7B 7C 1S 4B EW 3B WW 5C 7C 3D NW GD 9D SW 1C 1F SW 6D 2C GD 1C WW 6C 1B NW 4D 3B 9D 2C 5C WD 8D 2B 4B 8C 8D 6B 4S 7D 8C 9B 8B 3C 8B 3F WD 4F 2D 7C RD 5B 3B 8C RD 1D 1B GD 1D SW 1B 5C 9B 9D RD 2C 2D 4C 5C 2B 4B 4D WW 8B 9C 3D WD 2B 4C WD 9D 4C EW 2C GD 4D 4C EW 6D 6C 1C NW 6D 8B 2D 8D 9C WW 2D 7D 7D NW EW 8C 9B 3C 9C 3B 3S 6C 5D 7B 4D 5D 6B 8D 5B 3D 7B 5B 3C 2B 6B 5B 6B 5D 6D
NewHand 1 2 17
PlayerDraws 1 RD
PlayerDraws 1 3D
PlayerDraws 1 5D
PlayerDraws 1 1B
PlayerDraws 2 1D
PlayerDraws 2 SW
PlayerDraws 2 6C
PlayerDraws 2 7C
PlayerDraws 3 7B
PlayerDraws 3 3C
PlayerDraws 3 2S
PlayerDraws 3 9C
PlayerDraws 4 1C
PlayerDraws 4 4B
PlayerDraws 4 9B
PlayerDraws 4 1D
PlayerDraws 1 2F
PlayerDraws 1 7D
PlayerDraws 1 7B
PlayerDraws 1 7C
PlayerDraws 2 1S
PlayerDraws 2 4B
PlayerDraws 2 EW
PlayerDraws 2 3B
PlayerDraws 3 WW
PlayerDraws 3 5C
PlayerDraws 3 7C
PlayerDraws 3 3D
PlayerDraws 4 NW
PlayerDraws 4 GD
PlayerDraws 4 9D
PlayerDraws 4 SW
PlayerDraws 1 1C
PlayerDraws 1 1F
PlayerDraws 1 SW
PlayerDraws 1 6D
PlayerDraws 2 2C
PlayerDraws 2 GD
PlayerDraws 2 1C
PlayerDraws 2 WW
PlayerDraws 3 6C
PlayerDraws 3 1B
PlayerDraws 3 NW
PlayerDraws 3 4D
PlayerDraws 4 3B
PlayerDraws 4 9D
PlayerDraws 4 2C
PlayerDraws 4 5C
PlayerDraws 1 WD
PlayerDraws 2 8D
PlayerDraws 3 2B
PlayerDraws 4 4B
PlayerDraws 1 8C
PlayerDeclaresSpecial 1 2F
PlayerDraws 1 8D
PlayerDeclaresSpecial 1 1F
PlayerDraws 1 6B
PlayerDeclaresSpecial 1 --
PlayerDeclaresSpecial 2 1S
PlayerDraws 2 4S
PlayerDeclaresSpecial 2 4S
PlayerDraws 2 7D
PlayerDeclaresSpecial 2 --
PlayerDeclaresSpecial 3 2S
PlayerDraws 3 8C
PlayerDeclaresSpecial 3 --
PlayerDeclaresSpecial 4 --
Pause 1 0 to start play
PlayerReady 2
PlayerReady 3
PlayerReady 4
PlayerDiscards 1 8D 1 0
PlayerDoesntClaim 2 1 0
PlayerDoesntClaim 3 1 0
PlayerDoesntClaim 4 1 0
PlayerDraws 2 9B
PlayerDiscards 2 8D 2 0
PlayerDoesntClaim 1 2 0
PlayerDoesntClaim 3 2 0
PlayerDoesntClaim 4 2 0
PlayerDraws 3 8B
PlayerDiscards 3 NW 3 0
PlayerDoesntClaim 1 3 0
PlayerDoesntClaim 2 3 0
PlayerDoesntClaim 4 3 0
PlayerDraws 4 3C
PlayerDiscards 4 NW 4 0
PlayerDoesntClaim 1 4 0
PlayerDoesntClaim 2 4 0
PlayerDoesntClaim 3 4 0
PlayerDraws 1 8B
PlayerDiscards 1 5D 5 0
PlayerDoesntClaim 2 5 0
PlayerDoesntClaim 3 5 0
PlayerDoesntClaim 4 5 0
PlayerDraws 2 3F
PlayerDeclaresSpecial 2 3F
PlayerDraws 2 WD
PlayerDiscards 2 7D 6 0
PlayerDoesntClaim 1 6 0
PlayerDoesntClaim 3 6 0
PlayerDoesntClaim 4 6 0
PlayerDraws 3 4F
PlayerDeclaresSpecial 3 4F
PlayerDraws 3 2D
PlayerDiscards 3 WW 7 0
PlayerDoesntClaim 1 7 0
PlayerDoesntClaim 2 7 0
PlayerDoesntClaim 4 7 0
PlayerDraws 4 7C
PlayerDiscards 4 1D 8 0
PlayerDoesntClaim 3 8 0
PlayerDoesntClaim 2 8 0
PlayerDoesntClaim 1 8 0
PlayerDraws 1 RD
PlayerDiscards 1 7D 9 0
PlayerDoesntClaim 3 9 0
PlayerDoesntClaim 2 9 0
PlayerDoesntClaim 4 9 0
PlayerDraws 2 5B
PlayerDiscards 2 WW 10 0
PlayerDoesntClaim 1 10 0
PlayerDoesntClaim 3 10 0
PlayerDoesntClaim 4 10 0
PlayerDraws 3 3B
PlayerDiscards 3 3C 11 0
PlayerDoesntClaim 4 11 0
PlayerDoesntClaim 1 11 0
PlayerDoesntClaim 2 11 0
PlayerDraws 4 8C
PlayerDiscards 4 5C 12 0
PlayerDoesntClaim 2 12 0
PlayerDoesntClaim 3 12 0
PlayerDoesntClaim 1 12 0
PlayerDraws 1 RD
PlayerDiscards 1 3D 13 0
PlayerDoesntClaim 4 13 0
PlayerDoesntClaim 3 13 0
PlayerDoesntClaim 2 13 0
PlayerDraws 2 1D
PlayerDiscards 2 6C 14 0
PlayerDoesntClaim 3 14 0
PlayerDoesntClaim 1 14 0
PlayerDoesntClaim 4 14 0
PlayerDraws 3 1B
PlayerDiscards 3 8B 15 0
PlayerDoesntClaim 1 15 0
PlayerDoesntClaim 2 15 0
PlayerDoesntClaim 4 15 0
PlayerDraws 4 GD
PlayerDiscards 4 9B 16 0
PlayerDoesntClaim 2 16 0
PlayerDoesntClaim 3 16 0
PlayerDoesntClaim 1 16 0
PlayerDraws 1 1D
PlayerDiscards 1 8B 17 0
PlayerDoesntClaim 3 17 0
PlayerDoesntClaim 2 17 0
PlayerDoesntClaim 4 17 0
PlayerDraws 2 SW
PlayerDiscards 2 5B 18 0
PlayerDoesntClaim 4 18 0
PlayerDoesntClaim 1 18 0
PlayerDoesntClaim 3 18 0
PlayerDraws 3 1B
PlayerDiscards 3 1B 19 0
PlayerDoesntClaim 1 19 0
PlayerDoesntClaim 2 19 0
PlayerDoesntClaim 4 19 0
PlayerDraws 4 5C
PlayerDiscards 4 5C 20 0
PlayerDoesntClaim 3 20 0
PlayerDoesntClaim 2 20 0
PlayerDoesntClaim 1 20 0
PlayerDraws 1 9B
PlayerDiscards 1 9B 21 0
PlayerDoesntClaim 3 21 0
PlayerDoesntClaim 4 21 0
PlayerDoesntClaim 2 21 0
PlayerDraws 2 9D
PlayerDiscards 2 4B 22 0
PlayerClaimsChow 3 22 Upper
PlayerClaimsPung 4 22
PlayerDoesntClaim 1 22 0
PlayerPungs 4 4B
PlayerDiscards 4 3B 23 0
PlayerDoesntClaim 1 23 0
PlayerDoesntClaim 2 23 0
PlayerDoesntClaim 3 23 0
PlayerDraws 1 RD
PlayerDeclaresClosedKong 1 RD 24
PlayerDoesntClaim 3 24 0
PlayerDoesntClaim 2 24 0
PlayerDoesntClaim 4 24 0
PlayerDrawsLoose 1 6D
PlayerDiscards 1 1B 25 0
PlayerDoesntClaim 2 25 0
PlayerDoesntClaim 3 25 0
PlayerDoesntClaim 4 25 0
PlayerDraws 2 2C
PlayerDiscards 2 9D 26 0
PlayerDoesntClaim 1 26 0
PlayerDoesntClaim 3 26 0
PlayerClaimsPung 4 26
PlayerPungs 4 9D
PlayerDiscards 4 SW 27 0
PlayerDoesntClaim 1 27 0
PlayerClaimsPung 2 27
PlayerDoesntClaim 3 27 0
PlayerPungs 2 SW
PlayerDiscards 2 7C 28 0
PlayerDoesntClaim 1 28 0
PlayerClaimsChow 3 28 Lower
PlayerDoesntClaim 4 28 0
PlayerChows 3 7C Lower
PlayerDiscards 3 7B 29 0
PlayerDoesntClaim 1 29 0
PlayerDoesntClaim 2 29 0
PlayerDoesntClaim 4 29 0
PlayerDraws 4 2D
PlayerDiscards 4 2D 30 0
PlayerDoesntClaim 1 30 0
PlayerDoesntClaim 2 30 0
PlayerDoesntClaim 3 30 0
PlayerDraws 1 4C
PlayerDiscards 1 7C 31 0
PlayerDoesntClaim 2 31 0
PlayerDoesntClaim 3 31 0
PlayerDoesntClaim 4 31 0
PlayerDraws 2 5C
PlayerDiscards 2 5C 32 0
PlayerDoesntClaim 4 32 0
PlayerDoesntClaim 3 32 0
PlayerDoesntClaim 1 32 0
PlayerDraws 3 2B
PlayerDiscards 3 2B 33 0
PlayerDoesntClaim 1 33 0
PlayerDoesntClaim 2 33 0
PlayerDoesntClaim 4 33 0
PlayerDraws 4 4B
PlayerAddsToPung 4 4B 34
PlayerDoesntClaim 2 34 0
PlayerClaimsMahJong 3 34
PlayerDoesntClaim 1 34 0
PlayerRobsKong 3 4B
PlayerChows 3 4B Upper
PlayerFormsClosedChow 3 5C
PlayerFormsClosedChow 3 2D
PlayerFormsClosedPair 3 1B
HandScore 3 72 basic        10 (going Mah Jong)\
2 specials    8 (flowers and seasons)\
total pts    18\
              1 dbl (no score hand)\
              1 dbl (robbing a kong)\
total dbls    2\
SCORE:       72
PlayerFormsClosedPair 1 6D
PlayerFormsClosedPair 2 1D
PlayerFormsClosedChow 4 1C
PlayerFormsClosedPair 2 2C
PlayerFormsClosedPair 4 GD
PlayerShowsTiles 1 7B 1C SW WD 8C 6B 1D 4C
HandScore 1 88 RD+RD+RD+RD  32 (closed kong of majors)\
2 specials    8 (flowers and seasons)\
              4 (own flower)\
total pts    44\
RD+RD+RD+RD   1 dbl (pung/kong of dragons)\
total dbls    1\
SCORE:       88
PlayerShowsTiles 2 EW 3B GD 1C 9B WD
HandScore 2 32 SW-SW-SW      4 (open pung of majors)\
3 specials   12 (flowers and seasons)\
total pts    16\
SW-SW-SW      1 dbl (pung/kong of own wind)\
total dbls    1\
SCORE:       32
PlayerShowsTiles 4 7C 8C
HandScore 4 8 4B-4B-4B      2 (open pung of minors)\
9D-9D-9D      4 (open pung of majors)\
GD+GD         2 (pair of dragons)\
total pts     8\
total dbls    0\
SCORE:        8
Settlement 128 -160 288 -256 East  pays West    144\
South pays West     72\
North pays West     72\
West  GAINS   288\
\
South pays East    112\
North pays East    160\
East  GAINS   128\
\
North pays South    24\
South LOSES   160\
\
North LOSES   256\
\

