"""mj-server's messages as typed records, one class per message type of its ``protocol.h`` (protocol 1110).

``CMsg*`` are the server's (controller's) messages, ``PMsg*`` the client's (player's), named as mj-server names
their structures so that a reader of its sources finds them here.  Each record says how it is written: ``NAME`` is
the word that starts its line (``#`` for ``Comment``) and ``SPEC`` its fields in order, each with its kind:

* ``INT`` a decimal integer; ``BOOL`` 0 or 1; ``TILE`` a tile code (``1C`` ... ``4S``, ``--`` hidden or none);
* ``WIND`` a wind letter (``E S W N``); ``CPOS`` a chow position (``Lower Middle Upper AnyPos``);
* ``WORD`` a word of at most 15 characters (mj-server's ``word16``); ``OPTION`` a player option's name;
* ``TEXT`` the free text, always last and at most one: it runs to the end of the message and may hold newlines;
* ``TILES`` a free text that is a list of tile codes (``PlayerShowsTiles``, ``Wall``), read into a tuple;
* ``OTYPE``, ``OVALUE``, ``DESC``: a game option entry (its type, its value as that type says, its description).

The reading and writing of these records is ``wrappers.xmj.codec``.  A record is made, sent or read, and never
changed: they are plain slotted dataclasses, not frozen ones, because a frozen one's ``__init__`` costs three times
as much and an xmj match makes about twelve hundred of them a hand.  They are made by ``referee.game.records.record``
(the same dataclasses, defined at a tenth of ``dataclass``'s cost: every ``mjref`` start defines them all).
"""

from __future__ import annotations

from typing import ClassVar

from referee.game.records import record

INT, BOOL, TILE, WIND, CPOS, WORD, TEXT, TILES, OPTION, OTYPE, OVALUE, DESC = (
    "int", "bool", "tile", "wind", "cpos", "word", "text", "tiles", "option", "otype", "ovalue", "desc")
Spec = tuple[tuple[str, str], ...]


@record(slots=True)
class Message:
    """One message of either side; ``NAME`` and ``SPEC`` say how it is written."""

    NAME: ClassVar[str] = ""
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class CMsgError(Message):
    NAME: ClassVar[str] = "Error"
    SPEC: ClassVar[Spec] = (("seqno", INT), ("error", TEXT))
    seqno: int
    error: str


@record(slots=True)
class CMsgStateSaved(Message):
    NAME: ClassVar[str] = "StateSaved"
    SPEC: ClassVar[Spec] = (("id", INT), ("filename", TEXT))
    id: int
    filename: str


@record(slots=True)
class CMsgInfoTiles(Message):
    NAME: ClassVar[str] = "InfoTiles"
    SPEC: ClassVar[Spec] = (("id", INT), ("tileinfo", TEXT))
    id: int
    tileinfo: str


@record(slots=True)
class CMsgConnectReply(Message):
    NAME: ClassVar[str] = "ConnectReply"
    SPEC: ClassVar[Spec] = (("pvers", INT), ("id", INT), ("reason", TEXT))
    pvers: int
    id: int
    reason: str


@record(slots=True)
class CMsgAuthReqd(Message):
    NAME: ClassVar[str] = "AuthReqd"
    SPEC: ClassVar[Spec] = (("authtype", WORD), ("authdata", TEXT))
    authtype: str
    authdata: str


@record(slots=True)
class CMsgRedirect(Message):
    NAME: ClassVar[str] = "Redirect"
    SPEC: ClassVar[Spec] = (("dest", TEXT),)
    dest: str


@record(slots=True)
class CMsgReconnect(Message):
    NAME: ClassVar[str] = "Reconnect"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class CMsgPlayer(Message):
    NAME: ClassVar[str] = "Player"
    SPEC: ClassVar[Spec] = (("id", INT), ("name", TEXT))
    id: int
    name: str


@record(slots=True)
class CMsgGame(Message):
    NAME: ClassVar[str] = "Game"
    SPEC: ClassVar[Spec] = (
        ("east", INT), ("south", INT), ("west", INT), ("north", INT), ("round", WIND), ("hands_as_east", INT),
        ("firsteast", INT), ("east_score", INT), ("south_score", INT), ("west_score", INT), ("north_score", INT),
        ("protversion", INT), ("manager", INT))
    east: int
    south: int
    west: int
    north: int
    round: str
    hands_as_east: int
    firsteast: int
    east_score: int
    south_score: int
    west_score: int
    north_score: int
    protversion: int
    manager: int


@record(slots=True)
class CMsgNewRound(Message):
    NAME: ClassVar[str] = "NewRound"
    SPEC: ClassVar[Spec] = (("round", WIND),)
    round: str


@record(slots=True)
class CMsgNewHand(Message):
    NAME: ClassVar[str] = "NewHand"
    SPEC: ClassVar[Spec] = (("east", INT), ("start_wall", INT), ("start_stack", INT))
    east: int
    start_wall: int
    start_stack: int


@record(slots=True)
class CMsgPlayerDraws(Message):
    NAME: ClassVar[str] = "PlayerDraws"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgPlayerDrawsLoose(Message):
    NAME: ClassVar[str] = "PlayerDrawsLoose"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgPlayerDeclaresSpecial(Message):
    NAME: ClassVar[str] = "PlayerDeclaresSpecial"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgStartPlay(Message):
    NAME: ClassVar[str] = "StartPlay"
    SPEC: ClassVar[Spec] = (("id", INT),)
    id: int


@record(slots=True)
class CMsgStopPlay(Message):
    NAME: ClassVar[str] = "StopPlay"
    SPEC: ClassVar[Spec] = (("reason", TEXT),)
    reason: str


@record(slots=True)
class CMsgPause(Message):
    NAME: ClassVar[str] = "Pause"
    SPEC: ClassVar[Spec] = (("exempt", INT), ("requestor", INT), ("reason", TEXT))
    exempt: int
    requestor: int
    reason: str


@record(slots=True)
class CMsgPlayerReady(Message):
    NAME: ClassVar[str] = "PlayerReady"
    SPEC: ClassVar[Spec] = (("id", INT),)
    id: int


@record(slots=True)
class CMsgPlayerDiscards(Message):
    NAME: ClassVar[str] = "PlayerDiscards"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE), ("discard", INT), ("calling", BOOL))
    id: int
    tile: str
    discard: int
    calling: bool


@record(slots=True)
class CMsgPlayerDoesntClaim(Message):
    NAME: ClassVar[str] = "PlayerDoesntClaim"
    SPEC: ClassVar[Spec] = (("id", INT), ("discard", INT), ("timeout", BOOL))
    id: int
    discard: int
    timeout: bool


@record(slots=True)
class CMsgDangerousDiscard(Message):
    NAME: ClassVar[str] = "DangerousDiscard"
    SPEC: ClassVar[Spec] = (("id", INT), ("discard", INT), ("nochoice", BOOL))
    id: int
    discard: int
    nochoice: bool


@record(slots=True)
class CMsgPlayerClaimsPung(Message):
    NAME: ClassVar[str] = "PlayerClaimsPung"
    SPEC: ClassVar[Spec] = (("id", INT), ("discard", INT))
    id: int
    discard: int


@record(slots=True)
class CMsgClaimDenied(Message):
    NAME: ClassVar[str] = "ClaimDenied"
    SPEC: ClassVar[Spec] = (("id", INT), ("reason", TEXT))
    id: int
    reason: str


@record(slots=True)
class CMsgPlayerPungs(Message):
    NAME: ClassVar[str] = "PlayerPungs"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgPlayerFormsClosedPung(Message):
    NAME: ClassVar[str] = "PlayerFormsClosedPung"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgPlayerClaimsKong(Message):
    NAME: ClassVar[str] = "PlayerClaimsKong"
    SPEC: ClassVar[Spec] = (("id", INT), ("discard", INT))
    id: int
    discard: int


@record(slots=True)
class CMsgPlayerKongs(Message):
    NAME: ClassVar[str] = "PlayerKongs"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgPlayerDeclaresClosedKong(Message):
    NAME: ClassVar[str] = "PlayerDeclaresClosedKong"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE), ("discard", INT))
    id: int
    tile: str
    discard: int


@record(slots=True)
class CMsgPlayerAddsToPung(Message):
    NAME: ClassVar[str] = "PlayerAddsToPung"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE), ("discard", INT))
    id: int
    tile: str
    discard: int


@record(slots=True)
class CMsgPlayerRobsKong(Message):
    NAME: ClassVar[str] = "PlayerRobsKong"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgCanMahJong(Message):
    NAME: ClassVar[str] = "CanMahJong"
    SPEC: ClassVar[Spec] = (("tile", TILE), ("answer", BOOL))
    tile: str
    answer: bool


@record(slots=True)
class CMsgPlayerClaimsChow(Message):
    NAME: ClassVar[str] = "PlayerClaimsChow"
    SPEC: ClassVar[Spec] = (("id", INT), ("discard", INT), ("cpos", CPOS))
    id: int
    discard: int
    cpos: str


@record(slots=True)
class CMsgPlayerChows(Message):
    NAME: ClassVar[str] = "PlayerChows"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE), ("cpos", CPOS))
    id: int
    tile: str
    cpos: str


@record(slots=True)
class CMsgPlayerFormsClosedChow(Message):
    NAME: ClassVar[str] = "PlayerFormsClosedChow"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgWashOut(Message):
    NAME: ClassVar[str] = "WashOut"
    SPEC: ClassVar[Spec] = (("reason", TEXT),)
    reason: str


@record(slots=True)
class CMsgPlayerClaimsMahJong(Message):
    NAME: ClassVar[str] = "PlayerClaimsMahJong"
    SPEC: ClassVar[Spec] = (("id", INT), ("discard", INT))
    id: int
    discard: int


@record(slots=True)
class CMsgPlayerMahJongs(Message):
    NAME: ClassVar[str] = "PlayerMahJongs"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgPlayerPairs(Message):
    NAME: ClassVar[str] = "PlayerPairs"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgPlayerFormsClosedPair(Message):
    NAME: ClassVar[str] = "PlayerFormsClosedPair"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE))
    id: int
    tile: str


@record(slots=True)
class CMsgPlayerSpecialSet(Message):
    NAME: ClassVar[str] = "PlayerSpecialSet"
    SPEC: ClassVar[Spec] = (("id", INT), ("tile", TILE), ("tiles", TILES))
    id: int
    tile: str
    tiles: tuple[str, ...]


@record(slots=True)
class CMsgPlayerFormsClosedSpecialSet(Message):
    NAME: ClassVar[str] = "PlayerFormsClosedSpecialSet"
    SPEC: ClassVar[Spec] = (("id", INT), ("tiles", TILES))
    id: int
    tiles: tuple[str, ...]


@record(slots=True)
class CMsgPlayerShowsTiles(Message):
    NAME: ClassVar[str] = "PlayerShowsTiles"
    SPEC: ClassVar[Spec] = (("id", INT), ("tiles", TILES))
    id: int
    tiles: tuple[str, ...]


@record(slots=True)
class CMsgHandScore(Message):
    NAME: ClassVar[str] = "HandScore"
    SPEC: ClassVar[Spec] = (("id", INT), ("score", INT), ("explanation", TEXT))
    id: int
    score: int
    explanation: str


@record(slots=True)
class CMsgSettlement(Message):
    NAME: ClassVar[str] = "Settlement"
    SPEC: ClassVar[Spec] = (("east", INT), ("south", INT), ("west", INT), ("north", INT), ("explanation", TEXT))
    east: int
    south: int
    west: int
    north: int
    explanation: str


@record(slots=True)
class CMsgPlayerOptionSet(Message):
    NAME: ClassVar[str] = "PlayerOptionSet"
    SPEC: ClassVar[Spec] = (("option", OPTION), ("ack", BOOL), ("value", INT), ("text", TEXT))
    option: str
    ack: bool
    value: int
    text: str


@record(slots=True)
class CMsgGameOver(Message):
    NAME: ClassVar[str] = "GameOver"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class CMsgGameOption(Message):
    NAME: ClassVar[str] = "GameOption"
    SPEC: ClassVar[Spec] = (
        ("id", INT), ("name", WORD), ("type", OTYPE), ("protversion", INT), ("enabled", INT), ("value", OVALUE),
        ("desc", DESC))
    id: int
    name: str
    type: str
    protversion: int
    enabled: int
    value: int | str
    desc: str


@record(slots=True)
class CMsgChangeManager(Message):
    NAME: ClassVar[str] = "ChangeManager"
    SPEC: ClassVar[Spec] = (("id", INT), ("manager", INT))
    id: int
    manager: int


@record(slots=True)
class CMsgMessage(Message):
    NAME: ClassVar[str] = "Message"
    SPEC: ClassVar[Spec] = (("sender", INT), ("addressee", INT), ("text", TEXT))
    sender: int
    addressee: int
    text: str


@record(slots=True)
class CMsgWall(Message):
    NAME: ClassVar[str] = "Wall"
    SPEC: ClassVar[Spec] = (("wall", TILES),)
    wall: tuple[str, ...]


@record(slots=True)
class CMsgComment(Message):
    NAME: ClassVar[str] = "#"
    SPEC: ClassVar[Spec] = (("comment", TEXT),)
    comment: str


@record(slots=True)
class CMsgSwapTile(Message):
    NAME: ClassVar[str] = "SwapTile"
    SPEC: ClassVar[Spec] = (("id", INT), ("oldtile", TILE), ("newtile", TILE))
    id: int
    oldtile: str
    newtile: str



# ------------------------------------------------------------------------------------- client → server


@record(slots=True)
class PMsgSaveState(Message):
    NAME: ClassVar[str] = "SaveState"
    SPEC: ClassVar[Spec] = (("filename", TEXT),)
    filename: str


@record(slots=True)
class PMsgLoadState(Message):
    NAME: ClassVar[str] = "LoadState"
    SPEC: ClassVar[Spec] = (("filename", TEXT),)
    filename: str


@record(slots=True)
class PMsgConnect(Message):
    NAME: ClassVar[str] = "Connect"
    SPEC: ClassVar[Spec] = (("pvers", INT), ("last_id", INT), ("name", TEXT))
    pvers: int
    last_id: int
    name: str


@record(slots=True)
class PMsgAuthInfo(Message):
    NAME: ClassVar[str] = "AuthInfo"
    SPEC: ClassVar[Spec] = (("authtype", WORD), ("authdata", TEXT))
    authtype: str
    authdata: str


@record(slots=True)
class PMsgNewAuthInfo(Message):
    NAME: ClassVar[str] = "NewAuthInfo"
    SPEC: ClassVar[Spec] = (("authtype", WORD), ("authdata", TEXT))
    authtype: str
    authdata: str


@record(slots=True)
class PMsgRequestReconnect(Message):
    NAME: ClassVar[str] = "RequestReconnect"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class PMsgDisconnect(Message):
    NAME: ClassVar[str] = "Disconnect"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class PMsgDeclareSpecial(Message):
    NAME: ClassVar[str] = "DeclareSpecial"
    SPEC: ClassVar[Spec] = (("tile", TILE),)
    tile: str


@record(slots=True)
class PMsgRequestPause(Message):
    NAME: ClassVar[str] = "RequestPause"
    SPEC: ClassVar[Spec] = (("reason", TEXT),)
    reason: str


@record(slots=True)
class PMsgReady(Message):
    NAME: ClassVar[str] = "Ready"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class PMsgDiscard(Message):
    NAME: ClassVar[str] = "Discard"
    SPEC: ClassVar[Spec] = (("tile", TILE), ("calling", BOOL))
    tile: str
    calling: bool


@record(slots=True)
class PMsgNoClaim(Message):
    NAME: ClassVar[str] = "NoClaim"
    SPEC: ClassVar[Spec] = (("discard", INT),)
    discard: int


@record(slots=True)
class PMsgPung(Message):
    NAME: ClassVar[str] = "Pung"
    SPEC: ClassVar[Spec] = (("discard", INT),)
    discard: int


@record(slots=True)
class PMsgFormClosedPung(Message):
    NAME: ClassVar[str] = "FormClosedPung"
    SPEC: ClassVar[Spec] = (("tile", TILE),)
    tile: str


@record(slots=True)
class PMsgKong(Message):
    NAME: ClassVar[str] = "Kong"
    SPEC: ClassVar[Spec] = (("discard", INT),)
    discard: int


@record(slots=True)
class PMsgDeclareClosedKong(Message):
    NAME: ClassVar[str] = "DeclareClosedKong"
    SPEC: ClassVar[Spec] = (("tile", TILE),)
    tile: str


@record(slots=True)
class PMsgAddToPung(Message):
    NAME: ClassVar[str] = "AddToPung"
    SPEC: ClassVar[Spec] = (("tile", TILE),)
    tile: str


@record(slots=True)
class PMsgQueryMahJong(Message):
    NAME: ClassVar[str] = "QueryMahJong"
    SPEC: ClassVar[Spec] = (("tile", TILE),)
    tile: str


@record(slots=True)
class PMsgChow(Message):
    NAME: ClassVar[str] = "Chow"
    SPEC: ClassVar[Spec] = (("discard", INT), ("cpos", CPOS))
    discard: int
    cpos: str


@record(slots=True)
class PMsgFormClosedChow(Message):
    NAME: ClassVar[str] = "FormClosedChow"
    SPEC: ClassVar[Spec] = (("tile", TILE),)
    tile: str


@record(slots=True)
class PMsgDeclareWashOut(Message):
    NAME: ClassVar[str] = "DeclareWashOut"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class PMsgMahJong(Message):
    NAME: ClassVar[str] = "MahJong"
    SPEC: ClassVar[Spec] = (("discard", INT),)
    discard: int


@record(slots=True)
class PMsgPair(Message):
    NAME: ClassVar[str] = "Pair"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class PMsgFormClosedPair(Message):
    NAME: ClassVar[str] = "FormClosedPair"
    SPEC: ClassVar[Spec] = (("tile", TILE),)
    tile: str


@record(slots=True)
class PMsgSpecialSet(Message):
    NAME: ClassVar[str] = "SpecialSet"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class PMsgFormClosedSpecialSet(Message):
    NAME: ClassVar[str] = "FormClosedSpecialSet"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class PMsgShowTiles(Message):
    NAME: ClassVar[str] = "ShowTiles"
    SPEC: ClassVar[Spec] = ()


@record(slots=True)
class PMsgSetPlayerOption(Message):
    NAME: ClassVar[str] = "SetPlayerOption"
    SPEC: ClassVar[Spec] = (("option", OPTION), ("ack", BOOL), ("value", INT), ("text", TEXT))
    option: str
    ack: bool
    value: int
    text: str


@record(slots=True)
class PMsgSetGameOption(Message):
    NAME: ClassVar[str] = "SetGameOption"
    SPEC: ClassVar[Spec] = (("optname", WORD), ("optvalue", TEXT))
    optname: str
    optvalue: str


@record(slots=True)
class PMsgQueryGameOption(Message):
    NAME: ClassVar[str] = "QueryGameOption"
    SPEC: ClassVar[Spec] = (("optname", WORD),)
    optname: str


@record(slots=True)
class PMsgListGameOptions(Message):
    NAME: ClassVar[str] = "ListGameOptions"
    SPEC: ClassVar[Spec] = (("include_disabled", BOOL),)
    include_disabled: bool


@record(slots=True)
class PMsgChangeManager(Message):
    NAME: ClassVar[str] = "ChangeManager"
    SPEC: ClassVar[Spec] = (("manager", INT),)
    manager: int


@record(slots=True)
class PMsgSendMessage(Message):
    NAME: ClassVar[str] = "SendMessage"
    SPEC: ClassVar[Spec] = (("addressee", INT), ("text", TEXT))
    addressee: int
    text: str


@record(slots=True)
class PMsgSwapTile(Message):
    NAME: ClassVar[str] = "SwapTile"
    SPEC: ClassVar[Spec] = (("id", INT), ("oldtile", TILE), ("newtile", TILE))
    id: int
    oldtile: str
    newtile: str


SERVER_MESSAGES: dict[str, type[Message]] = {
    cls.NAME: cls for cls in Message.__subclasses__() if cls.__name__.startswith("CMsg")}
CLIENT_MESSAGES: dict[str, type[Message]] = {
    cls.NAME: cls for cls in Message.__subclasses__() if cls.__name__.startswith("PMsg")}
