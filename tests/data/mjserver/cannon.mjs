Player 4 Robot(14660)
Player 1 Robot(14657)
Player 2 Robot(14658)
Player 3 Robot(14659)
Game 3 4 1 2 W 0 1 -1116 844 -168 440 1110 0
GameOption 0 Timeout nat 0 1 15 time limit for claims
GameOption 0 TimeoutGrace nat 0 1 5 grace period when clients handle timeouts
GameOption 0 ScoreLimit nat 0 1 1000 limit on hand score
GameOption 0 NoLimit bool 0 1 0 no-limit game
GameOption 0 MahJongScore score 0 1 20 base score for going out
GameOption 0 SevenPairs bool 1020 1 0 seven pairs hand allowed
GameOption 0 SevenPairsVal score 1020 1 20 score for a seven pair hand
GameOption 0 Flowers bool 1020 1 1 play using flowers and seasons
GameOption 0 FlowersLoose bool 0 1 0 flowers replaced by loose tiles
GameOption 0 FlowersOwnEach score 0 1 0 score for each own flower or season
GameOption 0 FlowersOwnBoth score 0 1 10000 score for own flower and own season
GameOption 0 FlowersBouquet score 0 1 10000 score for all four flowers or all four seasons
GameOption 0 DeadWall bool 1020 1 1 there is a dead wall
GameOption 0 DeadWall16 bool 1020 1 1 dead wall is 16 tiles, unreplenished
GameOption 0 ConcealedFully score 0 1 10000 score for fully concealed hand
GameOption 0 ConcealedAlmost score 0 1 0 score for almost concealed hand
GameOption 0 LosersPurity bool 0 1 0 losing hands score doubles for pure, concealed etc.
GameOption 0 KongHas3Types bool 1034 1 0 claimed kongs count as concealed for doubling
GameOption 0 EastDoubles bool 0 1 1 east pays and receives double
GameOption 0 LosersSettle bool 0 1 1 losers pay each other
GameOption 0 DiscDoubles bool 0 1 0 the discarder pays double
GameOption 0 ShowOnWashout bool 0 1 0 tiles revealed on washout
GameOption 0 NumRounds nat 0 1 4 number of rounds to play
GameOption 0 End bool 0 1 1 end of option list
Wall GD 9C 9D EW SW GD 8D 2B 3B 7C 7D 4C 6B 6C NW 2D 2C 1B 8D SW 1C 6B 8C 3D 3B 6D WW 4D 2B 6C 5C RD 1S WD WW 4D 5B 5C EW 7B 2F 9D 8C 4B 7D 6C 1D 8B 8D GD WD 3D 8C 9C 4C 7D 4C 4C 3C 5C 1F 1B 5D 1B 5B 8B 8D 3F 5D 4D 1D 5D 4B 6D 3D 4S WD 4D 9B 8B 1D 3C 6B 3S WD 4F 6D 3D 7B 6B 9B 6C 7C 9C 5D 2D 1D 5B SW 6D 1B 8B 7C 3B 1C NW 4B 2D 4B 3C 2C NW EW NW 8C 2C RD 1C 9D RD EW 2D 9B 3B 1C 7B 7B 9C RD 3C 7C SW 9B GD WW 2B 9D 2S 7D 2B 5C 2C WW 5B
NewHand 4 3 14
PlayerDraws 4 GD
PlayerDraws 4 9C
PlayerDraws 4 9D
PlayerDraws 4 EW
PlayerDraws 1 SW
PlayerDraws 1 GD
PlayerDraws 1 8D
PlayerDraws 1 2B
PlayerDraws 2 3B
PlayerDraws 2 7C
PlayerDraws 2 7D
PlayerDraws 2 4C
PlayerDraws 3 6B
PlayerDraws 3 6C
PlayerDraws 3 NW
PlayerDraws 3 2D
PlayerDraws 4 2C
PlayerDraws 4 1B
PlayerDraws 4 8D
PlayerDraws 4 SW
PlayerDraws 1 1C
PlayerDraws 1 6B
PlayerDraws 1 8C
PlayerDraws 1 3D
PlayerDraws 2 3B
PlayerDraws 2 6D
PlayerDraws 2 WW
PlayerDraws 2 4D
PlayerDraws 3 2B
PlayerDraws 3 6C
PlayerDraws 3 5C
PlayerDraws 3 RD
PlayerDraws 4 1S
PlayerDraws 4 WD
PlayerDraws 4 WW
PlayerDraws 4 4D
PlayerDraws 1 5B
PlayerDraws 1 5C
PlayerDraws 1 EW
PlayerDraws 1 7B
PlayerDraws 2 2F
PlayerDraws 2 9D
PlayerDraws 2 8C
PlayerDraws 2 4B
PlayerDraws 3 7D
PlayerDraws 3 6C
PlayerDraws 3 1D
PlayerDraws 3 8B
PlayerDraws 4 8D
PlayerDraws 1 GD
PlayerDraws 2 WD
PlayerDraws 3 3D
PlayerDraws 4 8C
PlayerDeclaresSpecial 4 1S
PlayerDraws 4 9C
PlayerDeclaresSpecial 4 --
PlayerDeclaresSpecial 1 --
PlayerDeclaresSpecial 2 2F
PlayerDraws 2 4C
PlayerDeclaresSpecial 2 --
PlayerDeclaresSpecial 3 --
Pause 4 0 to start play
PlayerReady 3
PlayerReady 1
PlayerReady 2
PlayerDiscards 4 4D 1 0
PlayerDoesntClaim 1 1 0
PlayerDoesntClaim 2 1 0
PlayerDoesntClaim 3 1 0
PlayerDraws 1 7D
PlayerDiscards 1 3D 2 0
PlayerDoesntClaim 4 2 0
PlayerDoesntClaim 2 2 0
PlayerDoesntClaim 3 2 0
PlayerDraws 2 4C
PlayerDiscards 2 4D 3 0
PlayerDoesntClaim 1 3 0
PlayerDoesntClaim 4 3 0
PlayerDoesntClaim 3 3 0
PlayerDraws 3 4C
PlayerDiscards 3 7D 4 0
PlayerDoesntClaim 1 4 0
PlayerDoesntClaim 2 4 0
PlayerDoesntClaim 4 4 0
PlayerDraws 4 3C
PlayerDiscards 4 1B 5 0
PlayerDoesntClaim 2 5 0
PlayerDoesntClaim 3 5 0
PlayerDoesntClaim 1 5 0
PlayerDraws 1 5C
PlayerDiscards 1 7D 6 0
PlayerDoesntClaim 4 6 0
PlayerDoesntClaim 2 6 0
PlayerDoesntClaim 3 6 0
PlayerDraws 2 1F
PlayerDeclaresSpecial 2 1F
PlayerDraws 2 1B
PlayerDiscards 2 7D 7 0
PlayerDoesntClaim 4 7 0
PlayerDoesntClaim 1 7 0
PlayerDoesntClaim 3 7 0
PlayerDraws 3 5D
PlayerDiscards 3 1D 8 0
PlayerDoesntClaim 1 8 0
PlayerDoesntClaim 2 8 0
PlayerDoesntClaim 4 8 0
PlayerDraws 4 1B
PlayerDiscards 4 1B 9 0
PlayerDoesntClaim 1 9 0
PlayerDoesntClaim 2 9 0
PlayerDoesntClaim 3 9 0
PlayerDraws 1 5B
PlayerDiscards 1 8C 10 0
PlayerDoesntClaim 3 10 0
PlayerDoesntClaim 4 10 0
PlayerDoesntClaim 2 10 0
PlayerDraws 2 8B
PlayerDiscards 2 8B 11 0
PlayerDoesntClaim 1 11 0
PlayerDoesntClaim 3 11 0
PlayerDoesntClaim 4 11 0
PlayerDraws 3 8D
PlayerDiscards 3 3D 12 0
PlayerDoesntClaim 1 12 0
PlayerDoesntClaim 4 12 0
PlayerDoesntClaim 2 12 0
PlayerDraws 4 3F
PlayerDeclaresSpecial 4 3F
PlayerDraws 4 5D
PlayerDiscards 4 8C 13 0
PlayerDoesntClaim 2 13 0
PlayerDoesntClaim 1 13 0
PlayerDoesntClaim 3 13 0
PlayerDraws 1 4D
PlayerDiscards 1 4D 14 0
PlayerDoesntClaim 2 14 0
PlayerDoesntClaim 3 14 0
PlayerDoesntClaim 4 14 0
PlayerDraws 2 1D
PlayerDiscards 2 1D 15 0
PlayerDoesntClaim 4 15 0
PlayerDoesntClaim 1 15 0
PlayerDoesntClaim 3 15 0
PlayerDraws 3 5D
PlayerDiscards 3 5D 16 0
PlayerDoesntClaim 1 16 0
PlayerDoesntClaim 2 16 0
PlayerDoesntClaim 4 16 0
PlayerDraws 4 4B
PlayerDiscards 4 5D 17 0
PlayerDoesntClaim 1 17 0
PlayerDoesntClaim 2 17 0
PlayerDoesntClaim 3 17 0
PlayerDraws 1 6D
PlayerDiscards 1 1C 18 0
PlayerDoesntClaim 2 18 0
PlayerDoesntClaim 4 18 0
PlayerDoesntClaim 3 18 0
PlayerDraws 2 3D
PlayerDiscards 2 3D 19 0
PlayerDoesntClaim 4 19 0
PlayerDoesntClaim 1 19 0
PlayerDoesntClaim 3 19 0
PlayerDraws 3 4S
PlayerDeclaresSpecial 3 4S
PlayerDraws 3 WD
PlayerDiscards 3 5D 20 0
PlayerDoesntClaim 4 20 0
PlayerDoesntClaim 1 20 0
PlayerDoesntClaim 2 20 0
PlayerDraws 4 4D
PlayerDiscards 4 4D 21 0
PlayerDoesntClaim 1 21 0
PlayerDoesntClaim 3 21 0
PlayerDoesntClaim 2 21 0
PlayerDraws 1 9B
PlayerDiscards 1 6D 22 0
PlayerDoesntClaim 2 22 0
PlayerDoesntClaim 3 22 0
PlayerDoesntClaim 4 22 0
PlayerDraws 2 8B
PlayerDiscards 2 6D 23 0
PlayerDoesntClaim 1 23 0
PlayerDoesntClaim 3 23 0
PlayerDoesntClaim 4 23 0
PlayerDraws 3 1D
PlayerDiscards 3 1D 24 0
PlayerDoesntClaim 4 24 0
PlayerDoesntClaim 1 24 0
PlayerDoesntClaim 2 24 0
PlayerDraws 4 3C
PlayerDiscards 4 9D 25 0
PlayerDoesntClaim 1 25 0
PlayerDoesntClaim 2 25 0
PlayerDoesntClaim 3 25 0
PlayerDraws 1 6B
PlayerDiscards 1 2B 26 0
PlayerDoesntClaim 2 26 0
PlayerDoesntClaim 3 26 0
PlayerDoesntClaim 4 26 0
PlayerDraws 2 3S
PlayerDeclaresSpecial 2 3S
PlayerDraws 2 WD
PlayerDiscards 2 8B 27 0
PlayerDoesntClaim 3 27 0
PlayerDoesntClaim 1 27 0
PlayerDoesntClaim 4 27 0
PlayerDraws 3 4F
PlayerDeclaresSpecial 3 4F
PlayerDraws 3 6D
PlayerDiscards 3 6D 28 0
PlayerDoesntClaim 2 28 0
PlayerDoesntClaim 4 28 0
PlayerDoesntClaim 1 28 0
PlayerDraws 4 3D
PlayerDiscards 4 3D 29 0
PlayerDoesntClaim 1 29 0
PlayerDoesntClaim 3 29 0
PlayerDoesntClaim 2 29 0
PlayerDraws 1 7B
PlayerDiscards 1 9B 30 0
PlayerDoesntClaim 4 30 0
PlayerDoesntClaim 2 30 0
PlayerDoesntClaim 3 30 0
PlayerDraws 2 6B
PlayerDiscards 2 9D 31 0
PlayerDoesntClaim 4 31 0
PlayerDoesntClaim 3 31 0
PlayerDoesntClaim 1 31 0
PlayerDraws 3 9B
PlayerDiscards 3 8D 32 0
PlayerDoesntClaim 2 32 0
PlayerClaimsPung 4 32
PlayerDoesntClaim 1 32 0
PlayerPungs 4 8D
PlayerDiscards 4 4B 33 0
PlayerDoesntClaim 2 33 0
PlayerDoesntClaim 3 33 0
PlayerDoesntClaim 1 33 0
PlayerDraws 1 6C
PlayerDiscards 1 8D 34 0
PlayerDoesntClaim 2 34 0
PlayerDoesntClaim 3 34 0
PlayerDoesntClaim 4 34 0
PlayerDraws 2 7C
PlayerDiscards 2 8C 35 0
PlayerDoesntClaim 3 35 0
PlayerDoesntClaim 4 35 0
PlayerDoesntClaim 1 35 0
PlayerDraws 3 9C
PlayerDiscards 3 2D 36 0
PlayerDoesntClaim 4 36 0
PlayerDoesntClaim 1 36 0
PlayerDoesntClaim 2 36 0
PlayerDraws 4 5D
PlayerDiscards 4 5D 37 0
PlayerDoesntClaim 1 37 0
PlayerDoesntClaim 2 37 0
PlayerDoesntClaim 3 37 0
PlayerDraws 1 2D
PlayerDiscards 1 6C 38 0
PlayerDoesntClaim 2 38 0
PlayerDoesntClaim 3 38 0
PlayerDoesntClaim 4 38 0
PlayerDraws 2 1D
PlayerDiscards 2 1D 39 0
PlayerDoesntClaim 3 39 0
PlayerDoesntClaim 4 39 0
PlayerDoesntClaim 1 39 0
PlayerDraws 3 5B
PlayerDiscards 3 2B 40 0
PlayerDoesntClaim 2 40 0
PlayerDoesntClaim 4 40 0
PlayerDoesntClaim 1 40 0
PlayerDraws 4 SW
PlayerDiscards 4 2C 41 0
PlayerDoesntClaim 2 41 0
PlayerDoesntClaim 3 41 0
PlayerDoesntClaim 1 41 0
PlayerDraws 1 6D
PlayerDiscards 1 6D 42 0
PlayerDoesntClaim 3 42 0
PlayerDoesntClaim 2 42 0
PlayerDoesntClaim 4 42 0
PlayerDraws 2 1B
PlayerDiscards 2 4B 43 0
PlayerDoesntClaim 1 43 0
PlayerDoesntClaim 4 43 0
PlayerDoesntClaim 3 43 0
PlayerDraws 3 8B
PlayerDiscards 3 8B 44 0
PlayerDoesntClaim 1 44 0
PlayerDoesntClaim 4 44 0
PlayerDoesntClaim 2 44 0
PlayerDraws 4 7C
PlayerDiscards 4 7C 45 0
PlayerDoesntClaim 1 45 0
PlayerDoesntClaim 3 45 0
PlayerDoesntClaim 2 45 0
PlayerDraws 1 3B
PlayerDiscards 1 3B 46 0
PlayerDoesntClaim 3 46 0
PlayerDoesntClaim 4 46 0
PlayerDoesntClaim 2 46 0
PlayerDraws 2 1C
PlayerDiscards 2 6B 47 0
PlayerClaimsPung 1 47
PlayerDoesntClaim 3 47 0
PlayerDoesntClaim 4 47 0
PlayerPungs 1 6B
PlayerDiscards 1 2D 48 0
PlayerDoesntClaim 2 48 0
PlayerDoesntClaim 3 48 0
PlayerDoesntClaim 4 48 0
PlayerDraws 2 NW
PlayerDiscards 2 1C 49 0
PlayerDoesntClaim 1 49 0
PlayerDoesntClaim 4 49 0
PlayerDoesntClaim 3 49 0
PlayerDraws 3 4B
PlayerDiscards 3 4B 50 0
PlayerDoesntClaim 1 50 0
PlayerDoesntClaim 4 50 0
PlayerDoesntClaim 2 50 0
PlayerDraws 4 2D
PlayerDiscards 4 2D 51 0
PlayerDoesntClaim 1 51 0
PlayerDoesntClaim 3 51 0
PlayerDoesntClaim 2 51 0
PlayerDraws 1 4B
PlayerDiscards 1 4B 52 0
PlayerDoesntClaim 3 52 0
PlayerDoesntClaim 4 52 0
PlayerDoesntClaim 2 52 0
PlayerDraws 2 3C
PlayerDiscards 2 3C 53 0
PlayerDoesntClaim 1 53 0
PlayerDoesntClaim 3 53 0
PlayerClaimsPung 4 53
PlayerPungs 4 3C
PlayerDiscards 4 WW 54 0
PlayerDoesntClaim 1 54 0
PlayerDoesntClaim 2 54 0
PlayerDoesntClaim 3 54 0
PlayerDraws 1 2C
PlayerDiscards 1 2C 55 0
PlayerDoesntClaim 3 55 0
PlayerDoesntClaim 4 55 0
PlayerDoesntClaim 2 55 0
PlayerDraws 2 NW
PlayerDiscards 2 WW 56 0
PlayerDoesntClaim 1 56 0
PlayerDoesntClaim 3 56 0
PlayerDoesntClaim 4 56 0
PlayerDraws 3 EW
PlayerDiscards 3 4C 57 0
PlayerDoesntClaim 1 57 0
PlayerDoesntClaim 4 57 0
PlayerDoesntClaim 2 57 0
PlayerDraws 4 NW
PlayerDiscards 4 NW 58 0
PlayerDoesntClaim 1 58 0
PlayerDoesntClaim 3 58 0
PlayerClaimsPung 2 58
PlayerPungs 2 NW
PlayerDiscards 2 1B 59 0
PlayerDoesntClaim 1 59 0
PlayerDoesntClaim 3 59 0
PlayerDoesntClaim 4 59 0
PlayerDraws 3 8C
PlayerDiscards 3 8C 60 0
PlayerDoesntClaim 1 60 0
PlayerDoesntClaim 4 60 0
PlayerDoesntClaim 2 60 0
PlayerDraws 4 2C
PlayerDiscards 4 2C 61 0
PlayerDoesntClaim 1 61 0
PlayerDoesntClaim 3 61 0
PlayerDoesntClaim 2 61 0
PlayerDraws 1 RD
PlayerDiscards 1 SW 62 0
PlayerDoesntClaim 2 62 0
PlayerDoesntClaim 3 62 0
PlayerClaimsPung 4 62
PlayerPungs 4 SW
PlayerDiscards 4 EW 63 0
PlayerDoesntClaim 1 63 0
PlayerDoesntClaim 2 63 0
PlayerDoesntClaim 3 63 0
PlayerDraws 1 1C
PlayerDiscards 1 1C 64 0
PlayerDoesntClaim 2 64 0
PlayerDoesntClaim 3 64 0
PlayerDoesntClaim 4 64 0
PlayerDraws 2 9D
PlayerDiscards 2 9D 65 0
PlayerDoesntClaim 3 65 0
PlayerDoesntClaim 4 65 0
PlayerDoesntClaim 1 65 0
PlayerDraws 3 RD
PlayerDiscards 3 NW 66 0
PlayerDoesntClaim 1 66 0
PlayerDoesntClaim 4 66 0
PlayerDoesntClaim 2 66 0
PlayerDraws 4 EW
PlayerDiscards 4 EW 67 0
PlayerDoesntClaim 1 67 0
PlayerDoesntClaim 3 67 0
PlayerDoesntClaim 2 67 0
PlayerDraws 1 2D
PlayerDiscards 1 2D 68 0
PlayerDoesntClaim 3 68 0
PlayerDoesntClaim 4 68 0
PlayerDoesntClaim 2 68 0
PlayerDraws 2 9B
PlayerDiscards 2 1B 69 0
PlayerDoesntClaim 4 69 0
PlayerDoesntClaim 3 69 0
PlayerDoesntClaim 1 69 0
PlayerDraws 3 3B
PlayerDiscards 3 5C 70 0
PlayerDoesntClaim 4 70 0
PlayerClaimsPung 1 70
PlayerDoesntClaim 2 70 0
PlayerPungs 1 5C
DangerousDiscard 3 70 0
PlayerDiscards 1 EW 71 0
PlayerDoesntClaim 4 71 0
PlayerDoesntClaim 2 71 0
PlayerDoesntClaim 3 71 0
PlayerDraws 2 1C
PlayerDiscards 2 1C 72 0
PlayerDoesntClaim 3 72 0
PlayerDoesntClaim 4 72 0
PlayerDoesntClaim 1 72 0
PlayerDraws 3 7B
PlayerDiscards 3 EW 73 0
PlayerDoesntClaim 1 73 0
PlayerDoesntClaim 4 73 0
PlayerDoesntClaim 2 73 0
PlayerDraws 4 7B
PlayerDiscards 4 7B 74 0
PlayerClaimsPung 1 74
PlayerDoesntClaim 2 74 0
PlayerDoesntClaim 3 74 0
PlayerPungs 1 7B
DangerousDiscard 4 74 1
PlayerDiscards 1 RD 75 0
PlayerDoesntClaim 4 75 0
PlayerDoesntClaim 2 75 0
PlayerClaimsPung 3 75
PlayerPungs 3 RD
DangerousDiscard 1 75 1
PlayerDiscards 3 6C 76 0
PlayerDoesntClaim 1 76 0
PlayerDoesntClaim 2 76 0
PlayerDoesntClaim 4 76 0
PlayerDraws 4 9C
PlayerDiscards 4 GD 77 0
PlayerClaimsMahJong 1 77
PlayerDoesntClaim 2 77 0
PlayerDoesntClaim 3 77 0
PlayerMahJongs 1 --
PlayerPungs 1 GD
DangerousDiscard 4 77 1
PlayerFormsClosedPair 1 5B
HandScore 1 240 basic        20 (going Mah Jong)\
6B-6B-6B      2 (open pung of minors)\
5C-5C-5C      2 (open pung of minors)\
7B-7B-7B      2 (open pung of minors)\
GD-GD-GD      4 (open pung of majors)\
total pts    30\
GD-GD-GD      1 dbl (pung/kong of dragons)\
              1 dbl (no chows)\
              1 dbl (winning with last tile)\
total dbls    3\
SCORE:      240
PlayerFormsClosedPung 4 9C
PlayerFormsClosedPung 2 4C
PlayerFormsClosedChow 3 6B
PlayerShowsTiles 4 WD
HandScore 4 24 8D-8D-8D      2 (open pung of minors)\
3C-3C-3C      2 (open pung of minors)\
SW-SW-SW      4 (open pung of majors)\
9C+9C+9C      8 (closed pung of majors)\
2 specials    8 (flowers and seasons)\
total pts    24\
total dbls    0\
SCORE:       24
PlayerFormsClosedPair 2 3B
PlayerFormsClosedPair 3 6C
PlayerFormsClosedPair 2 7C
PlayerShowsTiles 3 WD 9B 9C 5B 3B
HandScore 3 48 RD-RD-RD      4 (open pung of majors)\
2 specials    8 (flowers and seasons)\
total pts    12\
RD-RD-RD      1 dbl (pung/kong of dragons)\
              1 dbl (own flower and season)\
total dbls    2\
SCORE:       48
PlayerFormsClosedPair 2 WD
PlayerShowsTiles 2 9B
HandScore 2 22 NW-NW-NW      4 (open pung of majors)\
4C+4C+4C      4 (closed pung of minors)\
WD+WD         2 (pair of dragons)\
3 specials   12 (flowers and seasons)\
total pts    22\
total dbls    0\
SCORE:       22
Settlement 0 960 0 -960 North let off a cannon\
\
North pays South (for East )   480\
North pays South (for West )   240\
North pays South   240\
South GAINS   960\
\
East  GAINS     0\
\
West  GAINS     0\
\
North LOSES   960\
\

