Player 4 Robot(14230)
Player 1 Robot(14227)
Player 2 Robot(14228)
Player 3 Robot(14229)
Game 3 4 1 2 W 0 1 -1116 844 -168 440 1110 0
GameOption 0 Timeout nat 0 1 15 time limit for claims
GameOption 0 TimeoutGrace nat 0 1 5 grace period when clients handle timeouts
GameOption 0 ScoreLimit nat 0 1 1000 limit on hand score
GameOption 0 NoLimit bool 0 1 0 no-limit game
GameOption 0 MahJongScore score 0 1 20 base score for going out
GameOption 0 SevenPairs bool 1020 1 1 seven pairs hand allowed
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
PlayerReady 1
PlayerReady 2
PlayerReady 3
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
PlayerDoesntClaim 4 3 0
PlayerDoesntClaim 1 3 0
PlayerDoesntClaim 3 3 0
PlayerDraws 3 4C
PlayerDiscards 3 7D 4 0
PlayerDoesntClaim 2 4 0
PlayerDoesntClaim 4 4 0
PlayerDoesntClaim 1 4 0
PlayerDraws 4 3C
PlayerDiscards 4 1B 5 0
PlayerDoesntClaim 1 5 0
PlayerDoesntClaim 3 5 0
PlayerDoesntClaim 2 5 0
PlayerDraws 1 5C
PlayerDiscards 1 7D 6 0
PlayerDoesntClaim 2 6 0
PlayerDoesntClaim 4 6 0
PlayerDoesntClaim 3 6 0
PlayerDraws 2 1F
PlayerDeclaresSpecial 2 1F
PlayerDraws 2 1B
PlayerDiscards 2 7D 7 0
PlayerDoesntClaim 1 7 0
PlayerDoesntClaim 3 7 0
PlayerDoesntClaim 4 7 0
PlayerDraws 3 5D
PlayerDiscards 3 1D 8 0
PlayerDoesntClaim 2 8 0
PlayerDoesntClaim 4 8 0
PlayerDoesntClaim 1 8 0
PlayerDraws 4 1B
PlayerDiscards 4 1B 9 0
PlayerDoesntClaim 1 9 0
PlayerDoesntClaim 3 9 0
PlayerDoesntClaim 2 9 0
PlayerDraws 1 5B
PlayerDiscards 1 8C 10 0
PlayerDoesntClaim 3 10 0
PlayerDoesntClaim 4 10 0
PlayerDoesntClaim 2 10 0
PlayerDraws 2 8B
PlayerDiscards 2 8B 11 0
PlayerDoesntClaim 4 11 0
PlayerDoesntClaim 3 11 0
PlayerDoesntClaim 1 11 0
PlayerDraws 3 8D
PlayerDiscards 3 3D 12 0
PlayerDoesntClaim 4 12 0
PlayerDoesntClaim 1 12 0
PlayerDoesntClaim 2 12 0
PlayerDraws 4 3F
PlayerDeclaresSpecial 4 3F
PlayerDraws 4 5D
PlayerDiscards 4 8C 13 0
PlayerDoesntClaim 1 13 0
PlayerDoesntClaim 2 13 0
PlayerDoesntClaim 3 13 0
PlayerDraws 1 4D
PlayerDiscards 1 4D 14 0
PlayerDoesntClaim 4 14 0
PlayerDoesntClaim 2 14 0
PlayerDoesntClaim 3 14 0
PlayerDraws 2 1D
PlayerDiscards 2 1D 15 0
PlayerDoesntClaim 1 15 0
PlayerDoesntClaim 4 15 0
PlayerDoesntClaim 3 15 0
PlayerDraws 3 5D
PlayerDiscards 3 5D 16 0
PlayerDoesntClaim 4 16 0
PlayerDoesntClaim 1 16 0
PlayerDoesntClaim 2 16 0
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
PlayerDoesntClaim 1 20 0
PlayerDoesntClaim 2 20 0
PlayerDoesntClaim 4 20 0
PlayerDraws 4 4D
PlayerDiscards 4 4D 21 0
PlayerDoesntClaim 1 21 0
PlayerDoesntClaim 2 21 0
PlayerDoesntClaim 3 21 0
PlayerDraws 1 9B
PlayerDiscards 1 6D 22 0
PlayerDoesntClaim 4 22 0
PlayerDoesntClaim 2 22 0
PlayerDoesntClaim 3 22 0
PlayerDraws 2 8B
PlayerDiscards 2 6D 23 0
PlayerDoesntClaim 4 23 0
PlayerDoesntClaim 1 23 0
PlayerDoesntClaim 3 23 0
PlayerDraws 3 1D
PlayerDiscards 3 1D 24 0
PlayerDoesntClaim 4 24 0
PlayerDoesntClaim 1 24 0
PlayerDoesntClaim 2 24 0
PlayerDraws 4 3C
PlayerDiscards 4 9D 25 0
PlayerDoesntClaim 1 25 0
PlayerDoesntClaim 3 25 0
PlayerDoesntClaim 2 25 0
PlayerDraws 1 6B
PlayerDiscards 1 2B 26 0
PlayerDoesntClaim 4 26 0
PlayerDoesntClaim 2 26 0
PlayerDoesntClaim 3 26 0
PlayerDraws 2 3S
PlayerDeclaresSpecial 2 3S
PlayerDraws 2 WD
PlayerDiscards 2 8B 27 0
PlayerDoesntClaim 4 27 0
PlayerDoesntClaim 1 27 0
PlayerDoesntClaim 3 27 0
PlayerDraws 3 4F
PlayerDeclaresSpecial 3 4F
PlayerDraws 3 6D
PlayerDiscards 3 6D 28 0
PlayerDoesntClaim 1 28 0
PlayerDoesntClaim 4 28 0
PlayerDoesntClaim 2 28 0
PlayerDraws 4 3D
PlayerDiscards 4 3D 29 0
PlayerDoesntClaim 3 29 0
PlayerDoesntClaim 1 29 0
PlayerDoesntClaim 2 29 0
PlayerDraws 1 7B
PlayerDiscards 1 9B 30 0
PlayerDoesntClaim 2 30 0
PlayerDoesntClaim 4 30 0
PlayerDoesntClaim 3 30 0
PlayerDraws 2 6B
PlayerDiscards 2 9D 31 0
PlayerDoesntClaim 1 31 0
PlayerDoesntClaim 3 31 0
PlayerDoesntClaim 4 31 0
PlayerDraws 3 9B
PlayerDiscards 3 8D 32 0
PlayerDoesntClaim 2 32 0
PlayerClaimsPung 4 32
PlayerDoesntClaim 1 32 0
PlayerPungs 4 8D
PlayerDiscards 4 4B 33 0
PlayerDoesntClaim 1 33 0
PlayerDoesntClaim 2 33 0
PlayerDoesntClaim 3 33 0
PlayerDraws 1 6C
PlayerDiscards 1 8D 34 0
PlayerDoesntClaim 2 34 0
PlayerDoesntClaim 4 34 0
PlayerDoesntClaim 3 34 0
PlayerDraws 2 7C
PlayerDiscards 2 8C 35 0
PlayerDoesntClaim 3 35 0
PlayerDoesntClaim 1 35 0
PlayerDoesntClaim 4 35 0
PlayerDraws 3 9C
PlayerDiscards 3 2D 36 0
PlayerDoesntClaim 1 36 0
PlayerDoesntClaim 4 36 0
PlayerDoesntClaim 2 36 0
PlayerDraws 4 5D
PlayerDiscards 4 5D 37 0
PlayerDoesntClaim 3 37 0
PlayerDoesntClaim 1 37 0
PlayerDoesntClaim 2 37 0
PlayerDraws 1 2D
PlayerDiscards 1 6C 38 0
PlayerDoesntClaim 2 38 0
PlayerDoesntClaim 4 38 0
PlayerDoesntClaim 3 38 0
PlayerDraws 2 1D
PlayerDiscards 2 1D 39 0
PlayerDoesntClaim 3 39 0
PlayerDoesntClaim 1 39 0
PlayerDoesntClaim 4 39 0
PlayerDraws 3 5B
PlayerDiscards 3 2B 40 0
PlayerDoesntClaim 1 40 0
PlayerDoesntClaim 4 40 0
PlayerDoesntClaim 2 40 0
PlayerDraws 4 SW
PlayerDiscards 4 2C 41 0
PlayerDoesntClaim 2 41 0
PlayerDoesntClaim 3 41 0
PlayerDoesntClaim 1 41 0
PlayerDraws 1 6D
PlayerDiscards 1 6D 42 0
PlayerDoesntClaim 3 42 0
PlayerDoesntClaim 4 42 0
PlayerDoesntClaim 2 42 0
PlayerDraws 2 1B
PlayerDiscards 2 4B 43 0
PlayerDoesntClaim 4 43 0
PlayerDoesntClaim 1 43 0
PlayerDoesntClaim 3 43 0
PlayerDraws 3 8B
PlayerDiscards 3 8B 44 0
PlayerDoesntClaim 4 44 0
PlayerDoesntClaim 1 44 0
PlayerDoesntClaim 2 44 0
PlayerDraws 4 7C
PlayerDiscards 4 7C 45 0
PlayerDoesntClaim 1 45 0
PlayerDoesntClaim 3 45 0
PlayerDoesntClaim 2 45 0
PlayerDraws 1 3B
PlayerDiscards 1 3B 46 0
PlayerDoesntClaim 2 46 0
PlayerDoesntClaim 3 46 0
PlayerDoesntClaim 4 46 0
PlayerDraws 2 1C
PlayerDiscards 2 6B 47 0
PlayerDoesntClaim 3 47 0
PlayerDoesntClaim 4 47 0
PlayerClaimsPung 1 47
PlayerPungs 1 6B
PlayerDiscards 1 2D 48 0
PlayerDoesntClaim 2 48 0
PlayerDoesntClaim 3 48 0
PlayerDoesntClaim 4 48 0
PlayerDraws 2 NW
PlayerDiscards 2 1C 49 0
PlayerDoesntClaim 1 49 0
PlayerDoesntClaim 3 49 0
PlayerDoesntClaim 4 49 0
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
PlayerDoesntClaim 2 52 0
PlayerDoesntClaim 4 52 0
PlayerDraws 2 3C
PlayerDiscards 2 3C 53 0
PlayerDoesntClaim 1 53 0
PlayerDoesntClaim 3 53 0
PlayerClaimsPung 4 53
PlayerPungs 4 3C
PlayerDiscards 4 WW 54 0
PlayerDoesntClaim 1 54 0
PlayerDoesntClaim 3 54 0
PlayerDoesntClaim 2 54 0
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
PlayerDoesntClaim 4 57 0
PlayerDoesntClaim 1 57 0
PlayerClaimsMahJong 2 57
PlayerMahJongs 2 --
PlayerPairs 2 4C
PlayerFormsClosedPair 2 3B
PlayerFormsClosedPair 2 7C
PlayerFormsClosedPair 2 WD
PlayerFormsClosedPair 2 4C
PlayerFormsClosedPair 2 1B
PlayerFormsClosedPair 2 NW
HandScore 2 54 basic        20 (going Mah Jong)\
WD+WD         2 (pair of dragons)\
basic points 20 (seven pairs)\
3 specials   12 (flowers and seasons)\
total pts    54\
total dbls    0\
SCORE:       54
PlayerFormsClosedPair 4 9C
PlayerFormsClosedPung 3 6C
PlayerFormsClosedPair 1 GD
PlayerShowsTiles 3 6B NW 5C RD WD 9B 9C 5B 8B EW
HandScore 3 24 6C+6C+6C      4 (closed pung of minors)\
2 specials    8 (flowers and seasons)\
total pts    12\
              1 dbl (own flower and season)\
total dbls    1\
SCORE:       24
PlayerFormsClosedPair 4 SW
PlayerShowsTiles 4 GD EW WD
HandScore 4 12 8D-8D-8D      2 (open pung of minors)\
3C-3C-3C      2 (open pung of minors)\
2 specials    8 (flowers and seasons)\
total pts    12\
total dbls    0\
SCORE:       12
PlayerFormsClosedPair 1 5B
PlayerFormsClosedPair 1 5C
PlayerFormsClosedPair 1 7B
PlayerShowsTiles 1 SW EW
HandScore 1 4 6B-6B-6B      2 (open pung of minors)\
GD+GD         2 (pair of dragons)\
total pts     4\
total dbls    0\
SCORE:        4
Settlement -116 -90 216 -10 East  pays West    108\
South pays West     54\
North pays West     54\
West  GAINS   216\
\
South pays East     16\
East  pays North    24\
East  LOSES   116\
\
South pays North    20\
South LOSES    90\
\
North LOSES    10\
\

