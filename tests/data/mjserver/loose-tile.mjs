Player 3 Robot(14731)
Player 4 Robot(14732)
Player 1 Robot(14729)
Player 2 Robot(14730)
Game 2 3 4 1 E 0 1 144 -172 132 -104 1110 0
GameOption 0 Timeout nat 0 1 15 time limit for claims
GameOption 0 TimeoutGrace nat 0 1 5 grace period when clients handle timeouts
GameOption 0 ScoreLimit nat 0 1 1000 limit on hand score
GameOption 0 NoLimit bool 0 1 0 no-limit game
GameOption 0 MahJongScore score 0 1 20 base score for going out
GameOption 0 SevenPairs bool 1020 1 0 seven pairs hand allowed
GameOption 0 SevenPairsVal score 1020 1 20 score for a seven pair hand
GameOption 0 Flowers bool 1020 1 1 play using flowers and seasons
GameOption 0 FlowersLoose bool 0 1 1 flowers replaced by loose tiles
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
Wall GD WD NW 8B EW 2D 2C NW 1F WW 8C 3F 6B 9B SW 7C 6C 9D 7C 1C 6B 4D 5D 5B 1D 6C 7D 2S 6B 7B 6C 4B 4B 2C WD 8D GD GD NW 4D 4C 9B EW 9D 7C SW 4B 2B 3B 7C 8D 7B 8B 3B 1C 3D 8D 6B SW 8C EW WD WW 4C 2F NW 2C 9B WD 8B 5B 4D 5C 3C 9C 3D 6D 3B 7B 1B 3D 4C 1D 2B 4D 2C 1B RD 5C 5D 3B 9D 3C 2B 1D 8C 7D 5D 1C 2B 6C 2D 5B GD 8C 5B 4C 3S SW RD EW 5C 8D 1C 3C 9C 5C 1D 2D 6D RD 2D 1B WW 6D 1B 5D 4S 3D 1S 9C 9D 7B 3C 7D WW 9B 4F 9C 4B RD 6D 7D 8B
NewHand 3 0 15
PlayerDraws 3 GD
PlayerDraws 3 WD
PlayerDraws 3 NW
PlayerDraws 3 8B
PlayerDraws 4 EW
PlayerDraws 4 2D
PlayerDraws 4 2C
PlayerDraws 4 NW
PlayerDraws 1 1F
PlayerDraws 1 WW
PlayerDraws 1 8C
PlayerDraws 1 3F
PlayerDraws 2 6B
PlayerDraws 2 9B
PlayerDraws 2 SW
PlayerDraws 2 7C
PlayerDraws 3 6C
PlayerDraws 3 9D
PlayerDraws 3 7C
PlayerDraws 3 1C
PlayerDraws 4 6B
PlayerDraws 4 4D
PlayerDraws 4 5D
PlayerDraws 4 5B
PlayerDraws 1 1D
PlayerDraws 1 6C
PlayerDraws 1 7D
PlayerDraws 1 2S
PlayerDraws 2 6B
PlayerDraws 2 7B
PlayerDraws 2 6C
PlayerDraws 2 4B
PlayerDraws 3 4B
PlayerDraws 3 2C
PlayerDraws 3 WD
PlayerDraws 3 8D
PlayerDraws 4 GD
PlayerDraws 4 GD
PlayerDraws 4 NW
PlayerDraws 4 4D
PlayerDraws 1 4C
PlayerDraws 1 9B
PlayerDraws 1 EW
PlayerDraws 1 9D
PlayerDraws 2 7C
PlayerDraws 2 SW
PlayerDraws 2 4B
PlayerDraws 2 2B
PlayerDraws 3 3B
PlayerDraws 4 7C
PlayerDraws 1 8D
PlayerDraws 2 7B
PlayerDraws 3 8B
PlayerDeclaresSpecial 3 --
PlayerDeclaresSpecial 4 --
PlayerDeclaresSpecial 1 1F
PlayerDrawsLoose 1 8B
PlayerDeclaresSpecial 1 3F
PlayerDrawsLoose 1 7D
PlayerDeclaresSpecial 1 2S
PlayerDrawsLoose 1 6D
PlayerDeclaresSpecial 1 --
PlayerDeclaresSpecial 2 --
Pause 3 0 to start play
PlayerReady 4
PlayerReady 2
PlayerReady 1
PlayerDiscards 3 NW 1 0
PlayerDoesntClaim 1 1 0
PlayerClaimsPung 4 1
PlayerDoesntClaim 2 1 0
PlayerPungs 4 NW
PlayerDiscards 4 2D 2 0
PlayerDoesntClaim 3 2 0
PlayerDoesntClaim 1 2 0
PlayerDoesntClaim 2 2 0
PlayerDraws 1 3B
PlayerDiscards 1 WW 3 0
PlayerDoesntClaim 3 3 0
PlayerDoesntClaim 4 3 0
PlayerDoesntClaim 2 3 0
PlayerDraws 2 1C
PlayerDiscards 2 9B 4 0
PlayerDoesntClaim 3 4 0
PlayerDoesntClaim 4 4 0
PlayerDoesntClaim 1 4 0
PlayerDraws 3 3D
PlayerDiscards 3 3D 5 0
PlayerDoesntClaim 2 5 0
PlayerDoesntClaim 4 5 0
PlayerDoesntClaim 1 5 0
PlayerDraws 4 8D
PlayerDiscards 4 8D 6 0
PlayerDoesntClaim 2 6 0
PlayerClaimsChow 1 6 Middle
PlayerDoesntClaim 3 6 0
PlayerChows 1 8D Middle
PlayerDiscards 1 EW 7 0
PlayerDoesntClaim 3 7 0
PlayerDoesntClaim 4 7 0
PlayerDoesntClaim 2 7 0
PlayerDraws 2 6B
PlayerDiscards 2 1C 8 0
PlayerDoesntClaim 4 8 0
PlayerDoesntClaim 1 8 0
PlayerDoesntClaim 3 8 0
PlayerDraws 3 SW
PlayerDiscards 3 SW 9 0
PlayerDoesntClaim 4 9 0
PlayerDoesntClaim 1 9 0
PlayerClaimsPung 2 9
PlayerPungs 2 SW
PlayerDiscards 2 2B 10 0
PlayerDoesntClaim 4 10 0
PlayerDoesntClaim 1 10 0
PlayerClaimsChow 3 10 Lower
PlayerChows 3 2B Lower
PlayerDiscards 3 GD 11 0
PlayerClaimsPung 4 11
PlayerDoesntClaim 2 11 0
PlayerDoesntClaim 1 11 0
PlayerPungs 4 GD
PlayerDiscards 4 EW 12 0
PlayerDoesntClaim 1 12 0
PlayerDoesntClaim 2 12 0
PlayerDoesntClaim 3 12 0
PlayerDraws 1 8C
PlayerDiscards 1 3B 13 0
PlayerDoesntClaim 3 13 0
PlayerDoesntClaim 2 13 0
PlayerDoesntClaim 4 13 0
PlayerDraws 2 EW
PlayerDiscards 2 6C 14 0
PlayerDoesntClaim 4 14 0
PlayerDoesntClaim 3 14 0
PlayerDoesntClaim 1 14 0
PlayerDraws 3 WD
PlayerDiscards 3 8D 15 0
PlayerDoesntClaim 4 15 0
PlayerDoesntClaim 1 15 0
PlayerDoesntClaim 2 15 0
PlayerDraws 4 WW
PlayerDiscards 4 WW 16 0
PlayerDoesntClaim 1 16 0
PlayerDoesntClaim 3 16 0
PlayerDoesntClaim 2 16 0
PlayerDraws 1 4C
PlayerDiscards 1 4C 17 0
PlayerDoesntClaim 2 17 0
PlayerDoesntClaim 4 17 0
PlayerDoesntClaim 3 17 0
PlayerDraws 2 2F
PlayerDeclaresSpecial 2 2F
PlayerDrawsLoose 2 RD
PlayerDiscards 2 EW 18 0
PlayerDoesntClaim 3 18 0
PlayerDoesntClaim 4 18 0
PlayerDoesntClaim 1 18 0
PlayerDraws 3 NW
PlayerDiscards 3 NW 19 0
PlayerDoesntClaim 2 19 0
PlayerDoesntClaim 4 19 0
PlayerDoesntClaim 1 19 0
PlayerDraws 4 2C
PlayerDiscards 4 7C 20 0
PlayerClaimsChow 1 20 Middle
PlayerClaimsPung 2 20
PlayerDoesntClaim 3 20 0
PlayerPungs 2 7C
PlayerDiscards 2 RD 21 0
PlayerDoesntClaim 4 21 0
PlayerDoesntClaim 3 21 0
PlayerDoesntClaim 1 21 0
PlayerDraws 3 9B
PlayerDiscards 3 9D 22 0
PlayerDoesntClaim 4 22 0
PlayerDoesntClaim 2 22 0
PlayerDoesntClaim 1 22 0
PlayerDraws 4 WD
PlayerDiscards 4 6B 23 0
PlayerDoesntClaim 1 23 0
PlayerClaimsKong 2 23
PlayerDoesntClaim 3 23 0
PlayerKongs 2 6B
PlayerDrawsLoose 2 4B
PlayerMahJongs 2 4B
PlayerFormsClosedPung 2 4B
PlayerFormsClosedPair 2 7B
HandScore 2 168 basic        20 (going Mah Jong)\
SW-SW-SW      4 (open pung of majors)\
7C-7C-7C      2 (open pung of minors)\
6B-6B-6B+6B   8 (open kong of minors)\
4B+4B+4B      4 (closed pung of minors)\
1 special     4 (flowers and seasons)\
total pts    42\
              1 dbl (no chows)\
              1 dbl (winning with loose tile)\
total dbls    2\
SCORE:      168
PlayerFormsClosedPung 3 WD
PlayerFormsClosedPair 3 8B
PlayerShowsTiles 3 6C 7C 1C 2C 9B
HandScore 3 16 WD+WD+WD      8 (closed pung of majors)\
total pts     8\
WD+WD+WD      1 dbl (pung/kong of dragons)\
total dbls    1\
SCORE:       16
PlayerFormsClosedChow 1 6D
PlayerFormsClosedPair 4 2C
PlayerFormsClosedPair 4 4D
PlayerShowsTiles 4 5D 5B WD
HandScore 4 16 NW-NW-NW      4 (open pung of majors)\
GD-GD-GD      4 (open pung of majors)\
total pts     8\
GD-GD-GD      1 dbl (pung/kong of dragons)\
total dbls    1\
SCORE:       16
PlayerFormsClosedPair 1 8C
PlayerShowsTiles 1 1D 6C 9B 8B 4C
HandScore 1 12 3 specials   12 (flowers and seasons)\
total pts    12\
total dbls    0\
SCORE:       12
Settlement -328 -164 -180 672 East  pays North   336\
South pays North   168\
West  pays North   168\
North GAINS   672\
\
East  and South are even\
West  pays East      8\
East  LOSES   328\
\
West  pays South     4\
South LOSES   164\
\
West  LOSES   180\
\

