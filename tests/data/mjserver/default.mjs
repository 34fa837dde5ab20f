Player 1 Robot(14064)
Player 2 Robot(14065)
Player 3 Robot(14066)
Player 4 Robot(14067)
Game 1 2 3 4 E 0 1 0 0 0 0 1110 0
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
GameOption 0 KongHas3Types bool 1034 1 0 claimed kongs count as concealed for doubling
GameOption 0 EastDoubles bool 0 1 1 east pays and receives double
GameOption 0 LosersSettle bool 0 1 1 losers pay each other
GameOption 0 DiscDoubles bool 0 1 0 the discarder pays double
GameOption 0 ShowOnWashout bool 0 1 0 tiles revealed on washout
GameOption 0 NumRounds nat 0 1 4 number of rounds to play
GameOption 0 End bool 0 1 1 end of option list
Wall NW 6C EW SW RD 7B 3C 9D 1C 1D 7C 3D 4C 8C NW WW 3D 5D 5B 1D 1B 8B 5B 7D 5B 3C 4B 4B SW 7B 6C 6D 9C 9B 9C 6C 5C 9D 8B 3D 5C 2D 2C 5D 8B 9B 8D 5D 2B 8D 4C 3B RD 7C 9D 1F 2B 1B 1C 4D 6B 7D 1D 2S 6B 2C NW SW 1C 4C 4D WD 5D 8C 8C 6D 5B 3D 2D 6B 3C 3B 3F 9D EW WD 4B GD 2D GD 4C 9C 7D 2C 4S 3C 5C RD 5C 8D 6C 3B 4F 8D 4D 1S 7B WW 6B 9C 7B 7C 4B 2B 2C 6D 1C 3B 2B 9B 1D 8C EW 7C WD RD WW 6D 9B 2D SW 1B 8B GD 4D NW 2F WD 1B WW 7D 3S EW GD
NewHand 1 2 13
PlayerDraws 1 NW
PlayerDraws 1 6C
PlayerDraws 1 EW
PlayerDraws 1 SW
PlayerDraws 2 RD
PlayerDraws 2 7B
PlayerDraws 2 3C
PlayerDraws 2 9D
PlayerDraws 3 1C
PlayerDraws 3 1D
PlayerDraws 3 7C
PlayerDraws 3 3D
PlayerDraws 4 4C
PlayerDraws 4 8C
PlayerDraws 4 NW
PlayerDraws 4 WW
PlayerDraws 1 3D
PlayerDraws 1 5D
PlayerDraws 1 5B
PlayerDraws 1 1D
PlayerDraws 2 1B
PlayerDraws 2 8B
PlayerDraws 2 5B
PlayerDraws 2 7D
PlayerDraws 3 5B
PlayerDraws 3 3C
PlayerDraws 3 4B
PlayerDraws 3 4B
PlayerDraws 4 SW
PlayerDraws 4 7B
PlayerDraws 4 6C
PlayerDraws 4 6D
PlayerDraws 1 9C
PlayerDraws 1 9B
PlayerDraws 1 9C
PlayerDraws 1 6C
PlayerDraws 2 5C
PlayerDraws 2 9D
PlayerDraws 2 8B
PlayerDraws 2 3D
PlayerDraws 3 5C
PlayerDraws 3 2D
PlayerDraws 3 2C
PlayerDraws 3 5D
PlayerDraws 4 8B
PlayerDraws 4 9B
PlayerDraws 4 8D
PlayerDraws 4 5D
PlayerDraws 1 2B
PlayerDraws 2 8D
PlayerDraws 3 4C
PlayerDraws 4 3B
PlayerDraws 1 RD
PlayerDeclaresSpecial 1 --
PlayerDeclaresSpecial 2 --
PlayerDeclaresSpecial 3 --
PlayerDeclaresSpecial 4 --
Pause 1 0 to start play
PlayerReady 2
PlayerReady 3
PlayerReady 4
PlayerDiscards 1 NW 1 0
PlayerDoesntClaim 2 1 0
PlayerDoesntClaim 3 1 0
PlayerDoesntClaim 4 1 0
PlayerDraws 2 7C
PlayerDiscards 2 9D 2 0
PlayerDoesntClaim 1 2 0
PlayerDoesntClaim 3 2 0
PlayerDoesntClaim 4 2 0
PlayerDraws 3 9D
PlayerDiscards 3 9D 3 0
PlayerDoesntClaim 1 3 0
PlayerDoesntClaim 2 3 0
PlayerDoesntClaim 4 3 0
PlayerDraws 4 1F
PlayerDeclaresSpecial 4 1F
PlayerDraws 4 2B
PlayerDiscards 4 NW 4 0
PlayerDoesntClaim 1 4 0
PlayerDoesntClaim 2 4 0
PlayerDoesntClaim 3 4 0
PlayerDraws 1 1B
PlayerDiscards 1 SW 5 0
PlayerDoesntClaim 2 5 0
PlayerDoesntClaim 3 5 0
PlayerDoesntClaim 4 5 0
PlayerDraws 2 1C
PlayerDiscards 2 3D 6 0
PlayerDoesntClaim 1 6 0
PlayerDoesntClaim 3 6 0
PlayerDoesntClaim 4 6 0
PlayerDraws 3 4D
PlayerDiscards 3 5B 7 0
PlayerDoesntClaim 1 7 0
PlayerDoesntClaim 2 7 0
PlayerDoesntClaim 4 7 0
PlayerDraws 4 6B
PlayerDiscards 4 SW 8 0
PlayerDoesntClaim 1 8 0
PlayerDoesntClaim 2 8 0
PlayerDoesntClaim 3 8 0
PlayerDraws 1 7D
PlayerDiscards 1 5B 9 0
PlayerDoesntClaim 2 9 0
PlayerDoesntClaim 3 9 0
PlayerDoesntClaim 4 9 0
PlayerDraws 2 1D
PlayerDiscards 2 1D 10 0
PlayerDoesntClaim 1 10 0
PlayerDoesntClaim 3 10 0
PlayerDoesntClaim 4 10 0
PlayerDraws 3 2S
PlayerDeclaresSpecial 3 2S
PlayerDraws 3 6B
PlayerDiscards 3 6B 11 0
PlayerDoesntClaim 1 11 0
PlayerDoesntClaim 2 11 0
PlayerDoesntClaim 4 11 0
PlayerDraws 4 2C
PlayerDiscards 4 8D 12 0
PlayerDoesntClaim 1 12 0
PlayerDoesntClaim 2 12 0
PlayerDoesntClaim 3 12 0
PlayerDraws 1 NW
PlayerDiscards 1 NW 13 0
PlayerDoesntClaim 3 13 0
PlayerDoesntClaim 2 13 0
PlayerDoesntClaim 4 13 0
PlayerDraws 2 SW
PlayerDiscards 2 SW 14 0
PlayerDoesntClaim 4 14 0
PlayerDoesntClaim 1 14 0
PlayerDoesntClaim 3 14 0
PlayerDraws 3 1C
PlayerDiscards 3 1C 15 0
PlayerDoesntClaim 1 15 0
PlayerDoesntClaim 2 15 0
PlayerDoesntClaim 4 15 0
PlayerDraws 4 4C
PlayerDiscards 4 2C 16 0
PlayerDoesntClaim 1 16 0
PlayerDoesntClaim 2 16 0
PlayerDoesntClaim 3 16 0
PlayerDraws 1 4D
PlayerDiscards 1 1D 17 0
PlayerDoesntClaim 2 17 0
PlayerDoesntClaim 4 17 0
PlayerDoesntClaim 3 17 0
PlayerDraws 2 WD
PlayerDiscards 2 1B 18 0
PlayerDoesntClaim 1 18 0
PlayerDoesntClaim 4 18 0
PlayerDoesntClaim 3 18 0
PlayerDraws 3 5D
PlayerDiscards 3 5D 19 0
PlayerDoesntClaim 1 19 0
PlayerDoesntClaim 2 19 0
PlayerDoesntClaim 4 19 0
PlayerDraws 4 8C
PlayerDiscards 4 6C 20 0
PlayerDoesntClaim 2 20 0
PlayerDoesntClaim 3 20 0
PlayerClaimsPung 1 20
PlayerPungs 1 6C
PlayerDiscards 1 EW 21 0
PlayerDoesntClaim 2 21 0
PlayerDoesntClaim 3 21 0
PlayerDoesntClaim 4 21 0
PlayerDraws 2 8C
PlayerDiscards 2 1C 22 0
PlayerDoesntClaim 1 22 0
PlayerDoesntClaim 3 22 0
PlayerDoesntClaim 4 22 0
PlayerDraws 3 6D
PlayerDiscards 3 7C 23 0
PlayerDoesntClaim 4 23 0
PlayerDoesntClaim 1 23 0
PlayerDoesntClaim 2 23 0
PlayerDraws 4 5B
PlayerDiscards 4 WW 24 0
PlayerDoesntClaim 1 24 0
PlayerDoesntClaim 2 24 0
PlayerDoesntClaim 3 24 0
PlayerDraws 1 3D
PlayerDiscards 1 3D 25 0
PlayerDoesntClaim 2 25 0
PlayerDoesntClaim 3 25 0
PlayerDoesntClaim 4 25 0
PlayerDraws 2 2D
PlayerDiscards 2 2D 26 0
PlayerDoesntClaim 1 26 0
PlayerDoesntClaim 3 26 0
PlayerDoesntClaim 4 26 0
PlayerDraws 3 6B
PlayerDiscards 3 6B 27 0
PlayerDoesntClaim 1 27 0
PlayerDoesntClaim 2 27 0
PlayerDoesntClaim 4 27 0
PlayerDraws 4 3C
PlayerDiscards 4 4C 28 0
PlayerDoesntClaim 2 28 0
PlayerDoesntClaim 1 28 0
PlayerDoesntClaim 3 28 0
PlayerDraws 1 3B
PlayerDiscards 1 7D 29 0
PlayerDoesntClaim 4 29 0
PlayerDoesntClaim 3 29 0
PlayerDoesntClaim 2 29 0
PlayerDraws 2 3F
PlayerDeclaresSpecial 2 3F
PlayerDraws 2 9D
PlayerDiscards 2 9D 30 0
PlayerDoesntClaim 4 30 0
PlayerDoesntClaim 1 30 0
PlayerDoesntClaim 3 30 0
PlayerDraws 3 EW
PlayerDiscards 3 EW 31 0
PlayerDoesntClaim 2 31 0
PlayerDoesntClaim 4 31 0
PlayerDoesntClaim 1 31 0
PlayerDraws 4 WD
PlayerDiscards 4 WD 32 0
PlayerDoesntClaim 1 32 0
PlayerDoesntClaim 2 32 0
PlayerDoesntClaim 3 32 0
PlayerDraws 1 4B
PlayerDiscards 1 1B 33 0
PlayerDoesntClaim 4 33 0
PlayerDoesntClaim 2 33 0
PlayerDoesntClaim 3 33 0
PlayerDraws 2 GD
PlayerDiscards 2 5B 34 0
PlayerDoesntClaim 1 34 0
PlayerDoesntClaim 3 34 0
PlayerDoesntClaim 4 34 0
PlayerDraws 3 2D
PlayerDiscards 3 2D 35 0
PlayerDoesntClaim 1 35 0
PlayerDoesntClaim 4 35 0
PlayerDoesntClaim 2 35 0
PlayerDraws 4 GD
PlayerDiscards 4 GD 36 0
PlayerDoesntClaim 1 36 0
PlayerDoesntClaim 2 36 0
PlayerDoesntClaim 3 36 0
PlayerDraws 1 4C
PlayerDiscards 1 4C 37 0
PlayerClaimsChow 2 37 Middle
PlayerDoesntClaim 3 37 0
PlayerDoesntClaim 4 37 0
PlayerChows 2 4C Middle
PlayerDiscards 2 GD 38 0
PlayerDoesntClaim 3 38 0
PlayerDoesntClaim 1 38 0
PlayerDoesntClaim 4 38 0
PlayerDraws 3 9C
PlayerDiscards 3 9C 39 0
PlayerClaimsPung 1 39
PlayerDoesntClaim 2 39 0
PlayerDoesntClaim 4 39 0
PlayerPungs 1 9C
PlayerDiscards 1 9B 40 0
PlayerDoesntClaim 3 40 0
PlayerDoesntClaim 4 40 0
PlayerClaimsChow 2 40 Upper
PlayerChows 2 9B Upper
PlayerDiscards 2 8B 41 0
PlayerDoesntClaim 1 41 0
PlayerDoesntClaim 3 41 0
PlayerDoesntClaim 4 41 0
PlayerDraws 3 7D
PlayerDiscards 3 7D 42 0
PlayerDoesntClaim 1 42 0
PlayerDoesntClaim 2 42 0
PlayerClaimsChow 4 42 Upper
PlayerChows 4 7D Upper
PlayerDiscards 4 5B 43 0
PlayerDoesntClaim 1 43 0
PlayerDoesntClaim 2 43 0
PlayerDoesntClaim 3 43 0
PlayerDraws 1 2C
PlayerDiscards 1 2C 44 0
PlayerDoesntClaim 2 44 0
PlayerDoesntClaim 3 44 0
PlayerDoesntClaim 4 44 0
PlayerDraws 2 4S
PlayerDeclaresSpecial 2 4S
PlayerDraws 2 3C
PlayerDiscards 2 WD 45 0
PlayerDoesntClaim 1 45 0
PlayerDoesntClaim 3 45 0
PlayerDoesntClaim 4 45 0
PlayerDraws 3 5C
PlayerDiscards 3 5C 46 0
PlayerDoesntClaim 2 46 0
PlayerDoesntClaim 1 46 0
PlayerClaimsChow 4 46 Upper
PlayerChows 4 5C Upper
PlayerDiscards 4 9B 47 0
PlayerDoesntClaim 1 47 0
PlayerDoesntClaim 2 47 0
PlayerDoesntClaim 3 47 0
PlayerDraws 1 RD
PlayerMahJongs 1 RD
PlayerFormsClosedChow 1 2B
PlayerFormsClosedChow 1 3D
PlayerFormsClosedPair 1 RD
HandScore 1 36 basic        20 (going Mah Jong)\
6C-6C-6C      2 (open pung of minors)\
9C-9C-9C      4 (open pung of majors)\
RD+RD         2 (pair of dragons)\
extra         2 (winning from wall)\
extra         4 (fishing the eyes)\
extra         2 (filling the only place)\
total pts    36\
total dbls    0\
SCORE:       36
PlayerFormsClosedChow 2 7D
PlayerFormsClosedChow 3 1D
PlayerFormsClosedChow 4 6B
PlayerShowsTiles 2 RD 7C 8C 3C
HandScore 2 8 2 specials    8 (flowers and seasons)\
total pts     8\
total dbls    0\
SCORE:        8
PlayerFormsClosedPair 4 8C
PlayerFormsClosedChow 3 3C
PlayerShowsTiles 4 3B 2B
HandScore 4 4 1 special     4 (flowers and seasons)\
total pts     4\
total dbls    0\
SCORE:        4
PlayerFormsClosedChow 3 4D
PlayerFormsClosedPair 3 4B
PlayerShowsTiles 3 2C 1C
HandScore 3 4 1 special     4 (flowers and seasons)\
total pts     4\
total dbls    0\
SCORE:        4
Settlement 216 -64 -76 -76 South pays East     72\
West  pays East     72\
North pays East     72\
East  GAINS   216\
\
West  pays South     4\
North pays South     4\
South LOSES    64\
\
West  and North are even\
West  LOSES    76\
\
North LOSES    76\
\

