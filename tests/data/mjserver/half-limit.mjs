Player 1 Robot(12216)
Player 2 Robot(12218)
Player 3 Robot(12219)
Player 4 Robot(12220)
Game 1 2 3 4 E 0 1 0 0 0 0 1110 0
GameOption 0 Timeout nat 0 1 15 time limit for claims
GameOption 0 TimeoutGrace nat 0 1 5 grace period when clients handle timeouts
GameOption 0 ScoreLimit nat 0 1 500 x
GameOption 0 NoLimit bool 0 1 0 x
GameOption 0 MahJongScore score 0 1 10010 x
GameOption 0 SevenPairs bool 1020 1 0 x
GameOption 0 SevenPairsVal score 1020 1 20 score for a seven pair hand
GameOption 0 Flowers bool 1020 1 0 x
GameOption 0 FlowersLoose bool 0 1 0 flowers replaced by loose tiles
GameOption 0 FlowersOwnEach score 0 1 2 x
GameOption 0 FlowersOwnBoth score 0 1 10000 score for own flower and own season
GameOption 0 FlowersBouquet score 0 1 50000000 x
GameOption 0 DeadWall bool 1020 1 0 x
GameOption 0 DeadWall16 bool 1020 1 0 dead wall is 16 tiles, unreplenished
GameOption 0 ConcealedFully score 0 1 10000 score for fully concealed hand
GameOption 0 ConcealedAlmost score 0 1 50000000 x
GameOption 0 LosersPurity bool 0 1 0 x
GameOption 0 KongHas3Types bool 1034 1 0 x
GameOption 0 EastDoubles bool 0 1 0 x
GameOption 0 LosersSettle bool 0 1 1 losers pay each other
GameOption 0 DiscDoubles bool 0 1 0 the discarder pays double
GameOption 0 ShowOnWashout bool 0 1 0 tiles revealed on washout
GameOption 0 NumRounds nat 0 1 4 number of rounds to play
GameOption 0 End bool 0 1 1 end of option list
Wall 3B 9C NW 1D 2C EW 1C 7B 8C 8D RD 5B WW NW WD WW 2B 1C 6D 1D 8B 4B 4D 8C 9C 7D 2B 3C 3D 2B 6B 4D 6C 4B 2C 5D WW 8C GD 3C WD NW 6C 2C EW 4D 1C 3B 6B 9D SW 3C 8B 6D 3B 3D 8B 8D 9B 5D SW 7D GD 6C 5C 7B WW 4C 1B 4C 2D 9B 5C RD 7C 1D EW WD 1B 7D GD 2C SW 1D 4B 9B 5C 3D 8D 9D 5C 6C 1B 9B 7C 8C 9D 6B RD 5D 3D 7B 6B 7C RD 1C 1B 9D 9C 2D 8B 5B 5B WD 5B 7B 4D GD 4B 7D 5D 6D 4C 6D NW 8D 7C 3B 4C SW 2D EW 9C 2D 3C 2B
NewHand 1 3 12
PlayerDraws 1 3B
PlayerDraws 1 9C
PlayerDraws 1 NW
PlayerDraws 1 1D
PlayerDraws 2 2C
PlayerDraws 2 EW
PlayerDraws 2 1C
PlayerDraws 2 7B
PlayerDraws 3 8C
PlayerDraws 3 8D
PlayerDraws 3 RD
PlayerDraws 3 5B
PlayerDraws 4 WW
PlayerDraws 4 NW
PlayerDraws 4 WD
PlayerDraws 4 WW
PlayerDraws 1 2B
PlayerDraws 1 1C
PlayerDraws 1 6D
PlayerDraws 1 1D
PlayerDraws 2 8B
PlayerDraws 2 4B
PlayerDraws 2 4D
PlayerDraws 2 8C
PlayerDraws 3 9C
PlayerDraws 3 7D
PlayerDraws 3 2B
PlayerDraws 3 3C
PlayerDraws 4 3D
PlayerDraws 4 2B
PlayerDraws 4 6B
PlayerDraws 4 4D
PlayerDraws 1 6C
PlayerDraws 1 4B
PlayerDraws 1 2C
PlayerDraws 1 5D
PlayerDraws 2 WW
PlayerDraws 2 8C
PlayerDraws 2 GD
PlayerDraws 2 3C
PlayerDraws 3 WD
PlayerDraws 3 NW
PlayerDraws 3 6C
PlayerDraws 3 2C
PlayerDraws 4 EW
PlayerDraws 4 4D
PlayerDraws 4 1C
PlayerDraws 4 3B
PlayerDraws 1 6B
PlayerDraws 2 9D
PlayerDraws 3 SW
PlayerDraws 4 3C
PlayerDraws 1 8B
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
PlayerDraws 2 6D
PlayerDiscards 2 WW 2 0
PlayerDoesntClaim 1 2 0
PlayerDoesntClaim 3 2 0
PlayerClaimsPung 4 2
PlayerPungs 4 WW
PlayerDiscards 4 NW 3 0
PlayerDoesntClaim 1 3 0
PlayerDoesntClaim 2 3 0
PlayerDoesntClaim 3 3 0
PlayerDraws 1 3B
PlayerDiscards 1 3B 4 0
PlayerDoesntClaim 2 4 0
PlayerDoesntClaim 3 4 0
PlayerDoesntClaim 4 4 0
PlayerDraws 2 3D
PlayerDiscards 2 GD 5 0
PlayerDoesntClaim 1 5 0
PlayerDoesntClaim 3 5 0
PlayerDoesntClaim 4 5 0
PlayerDraws 3 8B
PlayerDiscards 3 NW 6 0
PlayerDoesntClaim 1 6 0
PlayerDoesntClaim 2 6 0
PlayerDoesntClaim 4 6 0
PlayerDraws 4 8D
PlayerDiscards 4 6B 7 0
PlayerDoesntClaim 1 7 0
PlayerDoesntClaim 2 7 0
PlayerDoesntClaim 3 7 0
PlayerDraws 1 9B
PlayerDiscards 1 9B 8 0
PlayerClaimsChow 2 8 Upper
PlayerDoesntClaim 3 8 0
PlayerDoesntClaim 4 8 0
PlayerChows 2 9B Upper
PlayerDiscards 2 EW 9 0
PlayerDoesntClaim 1 9 0
PlayerDoesntClaim 3 9 0
PlayerDoesntClaim 4 9 0
PlayerDraws 3 5D
PlayerDiscards 3 8B 10 0
PlayerDoesntClaim 1 10 0
PlayerDoesntClaim 4 10 0
PlayerDoesntClaim 2 10 0
PlayerDraws 4 SW
PlayerDiscards 4 3B 11 0
PlayerDoesntClaim 1 11 0
PlayerDoesntClaim 2 11 0
PlayerDoesntClaim 3 11 0
PlayerDraws 1 7D
PlayerDiscards 1 9C 12 0
PlayerDoesntClaim 2 12 0
PlayerDoesntClaim 3 12 0
PlayerDoesntClaim 4 12 0
PlayerDraws 2 GD
PlayerDiscards 2 GD 13 0
PlayerDoesntClaim 1 13 0
PlayerDoesntClaim 3 13 0
PlayerDoesntClaim 4 13 0
PlayerDraws 3 6C
PlayerDiscards 3 SW 14 0
PlayerDoesntClaim 2 14 0
PlayerDoesntClaim 1 14 0
PlayerDoesntClaim 4 14 0
PlayerDraws 4 5C
PlayerDiscards 4 8D 15 0
PlayerDoesntClaim 1 15 0
PlayerDoesntClaim 2 15 0
PlayerDoesntClaim 3 15 0
PlayerDraws 1 7B
PlayerDiscards 1 6C 16 0
PlayerDoesntClaim 2 16 0
PlayerClaimsPung 3 16
PlayerDoesntClaim 4 16 0
PlayerPungs 3 6C
PlayerDiscards 3 5D 17 0
PlayerDoesntClaim 2 17 0
PlayerDoesntClaim 4 17 0
PlayerDoesntClaim 1 17 0
PlayerDraws 4 WW
PlayerAddsToPung 4 WW 18
PlayerDoesntClaim 1 18 0
PlayerDoesntClaim 2 18 0
PlayerDoesntClaim 3 18 0
PlayerDrawsLoose 4 2B
PlayerDiscards 4 3C 19 0
PlayerClaimsMahJong 1 19
PlayerDoesntClaim 2 19 0
PlayerDoesntClaim 3 19 0
PlayerMahJongs 1 --
PlayerChows 1 3C Upper
PlayerFormsClosedChow 1 2B
PlayerFormsClosedChow 1 5D
PlayerFormsClosedChow 1 6B
PlayerFormsClosedPair 1 1D
HandScore 1 250 \\ 0.5 Limit  250 (almost concealed hand)\
SCORE:      250
PlayerFormsClosedChow 2 1C
PlayerShowsTiles 3 8C 8D RD 5B 9C 7D 2B 3C WD 2C
HandScore 3 2 6C-6C-6C      2 (open pung of minors)\
total pts     2\
total dbls    0\
SCORE:        2
PlayerFormsClosedPair 4 2B
PlayerFormsClosedPair 2 8C
PlayerFormsClosedPair 4 4D
PlayerShowsTiles 2 4B 4D 9D 6D 3D
HandScore 2 0 total pts     0\
total dbls    0\
SCORE:        0
PlayerShowsTiles 4 WD 3D EW 1C SW 5C
HandScore 4 16 WW-WW-WW-WW  16 (open kong of majors)\
total pts    16\
total dbls    0\
SCORE:       16
Settlement 750 -268 -262 -220 South pays East    250\
West  pays East    250\
North pays East    250\
East  GAINS   750\
\
South pays West      2\
South pays North    16\
South LOSES   268\
\
West  pays North    14\
West  LOSES   262\
\
North LOSES   220\
\

