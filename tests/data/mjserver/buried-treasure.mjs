Player 2 Robot(14561)
Player 3 Robot(14562)
Player 4 Robot(14563)
Player 1 Robot(14560)
Game 2 3 4 1 N 0 1 -1504 -848 3536 -1184 1110 0
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
GameOption 0 DeadWall16 bool 1020 1 0 dead wall is 16 tiles, unreplenished
GameOption 0 ConcealedFully score 0 1 10000 score for fully concealed hand
GameOption 0 ConcealedAlmost score 0 1 0 score for almost concealed hand
GameOption 0 LosersPurity bool 0 1 0 losing hands score doubles for pure, concealed etc.
GameOption 0 KongHas3Types bool 1034 1 1 claimed kongs count as concealed
GameOption 0 EastDoubles bool 0 1 1 east pays and receives double
GameOption 0 LosersSettle bool 0 1 1 losers pay each other
GameOption 0 DiscDoubles bool 0 1 0 the discarder pays double
GameOption 0 ShowOnWashout bool 0 1 0 tiles revealed on washout
GameOption 0 NumRounds nat 0 1 4 number of rounds to play
GameOption 0 End bool 0 1 1 end of option list
Wall 9C 2C WD 4S 3C 7D 9D 8C WW 3C 3B 6D 6B 7D 8D 2C 3D 6B 5D 2B 4B 7B 9B 3B 1B 5C 4B 1C 2B 8D 9C 7C 6B 6C 2B 6C 7B 4D 9D NW 5B SW 3D NW RD 7C 8C GD 1D 9B 3C 8D 5C 9C 1B 5D EW 3B 2D NW 5D 2C SW 4B EW RD 5C WD 5C 5D 8B 7C 4D SW NW 3S EW 6C 1B 9C 1S 9B 9B 4C 2F 1D RD 8D SW 3D GD 8C WD 1C 4C 4C 6C 4D 2B 3D GD 7B 4D 6D 8B 3C 8C 2D 2C 4C 3B 5B 7D 3F WD 1C 1D 5B 1F WW WW 7D GD 8B 6D 2S 9D 9D 1D 7C 2D 1B 2D 6D WW 8B 4F RD 5B EW 7B 4B 6B 1C
NewHand 2 0 15
PlayerDraws 2 9C
PlayerDraws 2 2C
PlayerDraws 2 WD
PlayerDraws 2 4S
PlayerDraws 3 3C
PlayerDraws 3 7D
PlayerDraws 3 9D
PlayerDraws 3 8C
PlayerDraws 4 WW
PlayerDraws 4 3C
PlayerDraws 4 3B
PlayerDraws 4 6D
PlayerDraws 1 6B
PlayerDraws 1 7D
PlayerDraws 1 8D
PlayerDraws 1 2C
PlayerDraws 2 3D
PlayerDraws 2 6B
PlayerDraws 2 5D
PlayerDraws 2 2B
PlayerDraws 3 4B
PlayerDraws 3 7B
PlayerDraws 3 9B
PlayerDraws 3 3B
PlayerDraws 4 1B
PlayerDraws 4 5C
PlayerDraws 4 4B
PlayerDraws 4 1C
PlayerDraws 1 2B
PlayerDraws 1 8D
PlayerDraws 1 9C
PlayerDraws 1 7C
PlayerDraws 2 6B
PlayerDraws 2 6C
PlayerDraws 2 2B
PlayerDraws 2 6C
PlayerDraws 3 7B
PlayerDraws 3 4D
PlayerDraws 3 9D
PlayerDraws 3 NW
PlayerDraws 4 5B
PlayerDraws 4 SW
PlayerDraws 4 3D
PlayerDraws 4 NW
PlayerDraws 1 RD
PlayerDraws 1 7C
PlayerDraws 1 8C
PlayerDraws 1 GD
PlayerDraws 2 1D
PlayerDraws 3 9B
PlayerDraws 4 3C
PlayerDraws 1 8D
PlayerDraws 2 5C
PlayerDeclaresSpecial 2 4S
PlayerDraws 2 9C
PlayerDeclaresSpecial 2 --
PlayerDeclaresSpecial 3 --
PlayerDeclaresSpecial 4 --
PlayerDeclaresSpecial 1 --
Pause 2 0 to start play
PlayerReady 1
PlayerReady 3
PlayerReady 4
PlayerDiscards 2 5D 1 0
PlayerDoesntClaim 3 1 0
PlayerDoesntClaim 4 1 0
PlayerDoesntClaim 1 1 0
PlayerDraws 3 1B
PlayerDiscards 3 7D 2 0
PlayerDoesntClaim 4 2 0
PlayerDoesntClaim 2 2 0
PlayerDoesntClaim 1 2 0
PlayerDraws 4 5D
PlayerDiscards 4 3D 3 0
PlayerDoesntClaim 2 3 0
PlayerDoesntClaim 1 3 0
PlayerDoesntClaim 3 3 0
PlayerDraws 1 EW
PlayerDiscards 1 9C 4 0
PlayerDoesntClaim 3 4 0
PlayerDoesntClaim 4 4 0
PlayerClaimsPung 2 4
PlayerPungs 2 9C
PlayerDiscards 2 3D 5 0
PlayerDoesntClaim 1 5 0
PlayerDoesntClaim 3 5 0
PlayerDoesntClaim 4 5 0
PlayerDraws 3 3B
PlayerDiscards 3 3C 6 0
PlayerDoesntClaim 1 6 0
PlayerDoesntClaim 2 6 0
PlayerClaimsPung 4 6
PlayerPungs 4 3C
PlayerDiscards 4 1B 7 0
PlayerDoesntClaim 1 7 0
PlayerDoesntClaim 2 7 0
PlayerDoesntClaim 3 7 0
PlayerDraws 1 2D
PlayerDiscards 1 2D 8 0
PlayerDoesntClaim 2 8 0
PlayerDoesntClaim 3 8 0
PlayerDoesntClaim 4 8 0
PlayerDraws 2 NW
PlayerDiscards 2 6C 9 0
PlayerDoesntClaim 3 9 0
PlayerDoesntClaim 4 9 0
PlayerDoesntClaim 1 9 0
PlayerDraws 3 5D
PlayerDiscards 3 1B 10 0
PlayerDoesntClaim 2 10 0
PlayerDoesntClaim 4 10 0
PlayerDoesntClaim 1 10 0
PlayerDraws 4 2C
PlayerDiscards 4 5C 11 0
PlayerDoesntClaim 1 11 0
PlayerDoesntClaim 2 11 0
PlayerDoesntClaim 3 11 0
PlayerDraws 1 SW
PlayerDiscards 1 7D 12 0
PlayerDoesntClaim 2 12 0
PlayerDoesntClaim 3 12 0
PlayerDoesntClaim 4 12 0
PlayerDraws 2 4B
PlayerDiscards 2 4B 13 0
PlayerDoesntClaim 3 13 0
PlayerDoesntClaim 1 13 0
PlayerDoesntClaim 4 13 0
PlayerDraws 3 EW
PlayerDiscards 3 4B 14 0
PlayerDoesntClaim 1 14 0
PlayerDoesntClaim 2 14 0
PlayerDoesntClaim 4 14 0
PlayerDraws 4 RD
PlayerDiscards 4 2C 15 0
PlayerDoesntClaim 1 15 0
PlayerDoesntClaim 2 15 0
PlayerDoesntClaim 3 15 0
PlayerDraws 1 5C
PlayerDiscards 1 5C 16 0
PlayerDoesntClaim 3 16 0
PlayerDoesntClaim 4 16 0
PlayerDoesntClaim 2 16 0
PlayerDraws 2 WD
PlayerDiscards 2 6C 17 0
PlayerDoesntClaim 3 17 0
PlayerDoesntClaim 4 17 0
PlayerDoesntClaim 1 17 0
PlayerDraws 3 5C
PlayerDiscards 3 5C 18 0
PlayerDoesntClaim 1 18 0
PlayerDoesntClaim 2 18 0
PlayerDoesntClaim 4 18 0
PlayerDraws 4 5D
PlayerDiscards 4 6D 19 0
PlayerDoesntClaim 1 19 0
PlayerDoesntClaim 2 19 0
PlayerDoesntClaim 3 19 0
PlayerDraws 1 8B
PlayerDiscards 1 2C 20 0
PlayerDoesntClaim 4 20 0
PlayerDoesntClaim 2 20 0
PlayerDoesntClaim 3 20 0
PlayerDraws 2 7C
PlayerDiscards 2 5C 21 0
PlayerDoesntClaim 1 21 0
PlayerDoesntClaim 3 21 0
PlayerDoesntClaim 4 21 0
PlayerDraws 3 4D
PlayerDiscards 3 8C 22 0
PlayerDoesntClaim 1 22 0
PlayerDoesntClaim 4 22 0
PlayerDoesntClaim 2 22 0
PlayerDraws 4 SW
PlayerDiscards 4 1C 23 0
PlayerDoesntClaim 1 23 0
PlayerDoesntClaim 2 23 0
PlayerDoesntClaim 3 23 0
PlayerDraws 1 NW
PlayerDiscards 1 8C 24 0
PlayerDoesntClaim 2 24 0
PlayerDoesntClaim 4 24 0
PlayerDoesntClaim 3 24 0
PlayerDraws 2 3S
PlayerDeclaresSpecial 2 3S
PlayerDraws 2 EW
PlayerDiscards 2 2C 25 0
PlayerDoesntClaim 1 25 0
PlayerDoesntClaim 3 25 0
PlayerDoesntClaim 4 25 0
PlayerDraws 3 6C
PlayerDiscards 3 5D 26 0
PlayerDoesntClaim 1 26 0
PlayerClaimsPung 4 26
PlayerDoesntClaim 2 26 0
PlayerPungs 4 5D
PlayerDiscards 4 RD 27 0
PlayerDoesntClaim 1 27 0
PlayerDoesntClaim 2 27 0
PlayerDoesntClaim 3 27 0
PlayerDraws 1 1B
PlayerDiscards 1 1B 28 0
PlayerDoesntClaim 2 28 0
PlayerDoesntClaim 4 28 0
PlayerDoesntClaim 3 28 0
PlayerDraws 2 9C
PlayerAddsToPung 2 9C 29
PlayerDoesntClaim 1 29 0
PlayerDoesntClaim 3 29 0
PlayerDoesntClaim 4 29 0
PlayerDrawsLoose 2 1C
PlayerDiscards 2 1D 30 0
PlayerDoesntClaim 1 30 0
PlayerDoesntClaim 3 30 0
PlayerDoesntClaim 4 30 0
PlayerDraws 3 1S
PlayerDeclaresSpecial 3 1S
PlayerDraws 3 9B
PlayerDiscards 3 6C 31 0
PlayerDoesntClaim 1 31 0
PlayerDoesntClaim 2 31 0
PlayerDoesntClaim 4 31 0
PlayerDraws 4 9B
PlayerDiscards 4 9B 32 0
PlayerDoesntClaim 1 32 0
PlayerDoesntClaim 2 32 0
PlayerClaimsKong 3 32
PlayerKongs 3 9B
PlayerDrawsLoose 3 6B
PlayerDiscards 3 6B 33 0
PlayerDoesntClaim 1 33 0
PlayerDoesntClaim 2 33 0
PlayerDoesntClaim 4 33 0
PlayerDraws 4 4C
PlayerDiscards 4 4C 34 0
PlayerDoesntClaim 1 34 0
PlayerDoesntClaim 2 34 0
PlayerDoesntClaim 3 34 0
PlayerDraws 1 2F
PlayerDeclaresSpecial 1 2F
PlayerDraws 1 1D
PlayerDiscards 1 1D 35 0
PlayerDoesntClaim 2 35 0
PlayerDoesntClaim 4 35 0
PlayerDoesntClaim 3 35 0
PlayerDraws 2 RD
PlayerDiscards 2 6B 36 0
PlayerDoesntClaim 1 36 0
PlayerDoesntClaim 4 36 0
PlayerDoesntClaim 3 36 0
PlayerDraws 3 8D
PlayerDiscards 3 8D 37 0
PlayerClaimsKong 1 37
PlayerDoesntClaim 2 37 0
PlayerDoesntClaim 4 37 0
PlayerKongs 1 8D
PlayerDrawsLoose 1 4B
PlayerDiscards 1 6B 38 0
PlayerDoesntClaim 2 38 0
PlayerDoesntClaim 4 38 0
PlayerDoesntClaim 3 38 0
PlayerDraws 2 SW
PlayerDiscards 2 6B 39 0
PlayerDoesntClaim 1 39 0
PlayerDoesntClaim 4 39 0
PlayerDoesntClaim 3 39 0
PlayerDraws 3 3D
PlayerDiscards 3 3D 40 0
PlayerDoesntClaim 1 40 0
PlayerDoesntClaim 2 40 0
PlayerDoesntClaim 4 40 0
PlayerDraws 4 GD
PlayerDiscards 4 GD 41 0
PlayerDoesntClaim 1 41 0
PlayerDoesntClaim 2 41 0
PlayerDoesntClaim 3 41 0
PlayerDraws 1 8C
PlayerDiscards 1 4B 42 0
PlayerDoesntClaim 2 42 0
PlayerDoesntClaim 3 42 0
PlayerDoesntClaim 4 42 0
PlayerDraws 2 WD
PlayerDiscards 2 1C 43 0
PlayerDoesntClaim 1 43 0
PlayerDoesntClaim 3 43 0
PlayerDoesntClaim 4 43 0
PlayerDraws 3 1C
PlayerDiscards 3 1C 44 0
PlayerDoesntClaim 1 44 0
PlayerDoesntClaim 2 44 0
PlayerDoesntClaim 4 44 0
PlayerDraws 4 4C
PlayerDiscards 4 4C 45 0
PlayerDoesntClaim 1 45 0
PlayerDoesntClaim 2 45 0
PlayerDoesntClaim 3 45 0
PlayerDraws 1 4C
PlayerDiscards 1 8C 46 0
PlayerDoesntClaim 2 46 0
PlayerDoesntClaim 3 46 0
PlayerDoesntClaim 4 46 0
PlayerDraws 2 6C
PlayerDiscards 2 6C 47 0
PlayerDoesntClaim 1 47 0
PlayerDoesntClaim 3 47 0
PlayerDoesntClaim 4 47 0
PlayerDraws 3 4D
PlayerDiscards 3 NW 48 0
PlayerDoesntClaim 1 48 0
PlayerDoesntClaim 2 48 0
PlayerDoesntClaim 4 48 0
PlayerDraws 4 2B
PlayerDiscards 4 NW 49 0
PlayerDoesntClaim 1 49 0
PlayerDoesntClaim 2 49 0
PlayerDoesntClaim 3 49 0
PlayerDraws 1 3D
PlayerDiscards 1 3D 50 0
PlayerDoesntClaim 2 50 0
PlayerDoesntClaim 4 50 0
PlayerDoesntClaim 3 50 0
PlayerDraws 2 GD
PlayerDiscards 2 NW 51 0
PlayerDoesntClaim 1 51 0
PlayerDoesntClaim 3 51 0
PlayerDoesntClaim 4 51 0
PlayerDraws 3 7B
PlayerDiscards 3 EW 52 0
PlayerDoesntClaim 2 52 0
PlayerDoesntClaim 4 52 0
PlayerDoesntClaim 1 52 0
PlayerDraws 4 4D
PlayerDiscards 4 4D 53 0
PlayerDoesntClaim 2 53 0
PlayerDoesntClaim 1 53 0
PlayerClaimsKong 3 53
PlayerKongs 3 4D
PlayerDrawsLoose 3 7B
PlayerDeclaresClosedKong 3 7B 54
PlayerDoesntClaim 1 54 0
PlayerDoesntClaim 2 54 0
PlayerDoesntClaim 4 54 0
PlayerDrawsLoose 3 EW
PlayerDiscards 3 EW 55 0
PlayerDoesntClaim 2 55 0
PlayerDoesntClaim 4 55 0
PlayerDoesntClaim 1 55 0
PlayerDraws 4 6D
PlayerDiscards 4 6D 56 0
PlayerDoesntClaim 1 56 0
PlayerDoesntClaim 3 56 0
PlayerDoesntClaim 2 56 0
PlayerDraws 1 8B
PlayerDiscards 1 NW 57 0
PlayerDoesntClaim 2 57 0
PlayerDoesntClaim 3 57 0
PlayerDoesntClaim 4 57 0
PlayerDraws 2 3C
PlayerDiscards 2 3C 58 0
PlayerDoesntClaim 1 58 0
PlayerDoesntClaim 3 58 0
PlayerDoesntClaim 4 58 0
PlayerDraws 3 8C
PlayerDiscards 3 8C 59 0
PlayerDoesntClaim 2 59 0
PlayerDoesntClaim 4 59 0
PlayerDoesntClaim 1 59 0
PlayerDraws 4 2D
PlayerDiscards 4 2D 60 0
PlayerDoesntClaim 1 60 0
PlayerDoesntClaim 2 60 0
PlayerDoesntClaim 3 60 0
PlayerDraws 1 2C
PlayerDiscards 1 2C 61 0
PlayerDoesntClaim 2 61 0
PlayerDoesntClaim 3 61 0
PlayerDoesntClaim 4 61 0
PlayerDraws 2 4C
PlayerDiscards 2 EW 62 0
PlayerDoesntClaim 4 62 0
PlayerDoesntClaim 3 62 0
PlayerDoesntClaim 1 62 0
PlayerDraws 3 3B
PlayerMahJongs 3 3B
PlayerFormsClosedPung 3 3B
PlayerFormsClosedPair 3 9D
HandScore 3 1000 Limit Hand 1000 (Buried Treasure)\
SCORE:     1000
PlayerFormsClosedPung 2 WD
PlayerFormsClosedChow 4 3B
PlayerFormsClosedPair 1 7C
PlayerFormsClosedPair 2 2B
PlayerShowsTiles 2 7C RD SW GD 4C
HandScore 2 64 9C-9C-9C-9C  16 (annexed kong of majors)\
WD+WD+WD      8 (closed pung of majors)\
2 specials    8 (flowers and seasons)\
total pts    32\
WD+WD+WD      1 dbl (pung/kong of dragons)\
total dbls    1\
SCORE:       64
PlayerFormsClosedPair 4 SW
PlayerShowsTiles 4 WW 2B
HandScore 4 4 3C-3C-3C      2 (open pung of minors)\
5D-5D-5D      2 (open pung of minors)\
total pts     4\
total dbls    0\
SCORE:        4
PlayerFormsClosedPair 1 8B
PlayerShowsTiles 1 2B RD GD EW SW 4C
HandScore 1 12 8D-8D-8D+8D   8 (claimed kong of minors)\
1 special     4 (flowers and seasons)\
total pts    12\
total dbls    0\
SCORE:       12
Settlement -1776 4000 -1128 -1096 East  pays South  2000\
West  pays South  1000\
North pays South  1000\
South GAINS  4000\
\
West  pays East    120\
North pays East    104\
East  LOSES  1776\
\
West  pays North     8\
West  LOSES  1128\
\
North LOSES  1096\
\

