// One hundred and forty passes fused into one walk: more participants
// than a `u128` has bits, so the generated fused functions take
// `WideMask<3>` participant masks (and the interpreter its wide masks).
// Passes may `return` (switching participants off) and call children
// under a guard (so a call site builds its mask bit by bit). Both engines
// must agree with the interpreter, unfused and fused.

global C0: i64 = 0;
global C1: i64 = 0;
global C2: i64 = 0;
global C3: i64 = 0;
global C4: i64 = 0;
global C5: i64 = 0;
global C6: i64 = 0;
global C7: i64 = 0;
global C8: i64 = 0;
global C9: i64 = 0;
global C10: i64 = 0;
global C11: i64 = 0;
global C12: i64 = 0;
global C13: i64 = 0;
global C14: i64 = 0;
global C15: i64 = 0;
global C16: i64 = 0;
global C17: i64 = 0;
global C18: i64 = 0;
global C19: i64 = 0;
global C20: i64 = 0;
global C21: i64 = 0;
global C22: i64 = 0;
global C23: i64 = 0;
global C24: i64 = 0;
global C25: i64 = 0;
global C26: i64 = 0;
global C27: i64 = 0;
global C28: i64 = 0;
global C29: i64 = 0;
global C30: i64 = 0;
global C31: i64 = 0;
global C32: i64 = 0;
global C33: i64 = 0;
global C34: i64 = 0;
global C35: i64 = 0;
global C36: i64 = 0;
global C37: i64 = 0;
global C38: i64 = 0;
global C39: i64 = 0;
global C40: i64 = 0;
global C41: i64 = 0;
global C42: i64 = 0;
global C43: i64 = 0;
global C44: i64 = 0;
global C45: i64 = 0;
global C46: i64 = 0;
global C47: i64 = 0;
global C48: i64 = 0;
global C49: i64 = 0;
global C50: i64 = 0;
global C51: i64 = 0;
global C52: i64 = 0;
global C53: i64 = 0;
global C54: i64 = 0;
global C55: i64 = 0;
global C56: i64 = 0;
global C57: i64 = 0;
global C58: i64 = 0;
global C59: i64 = 0;
global C60: i64 = 0;
global C61: i64 = 0;
global C62: i64 = 0;
global C63: i64 = 0;
global C64: i64 = 0;
global C65: i64 = 0;
global C66: i64 = 0;
global C67: i64 = 0;
global C68: i64 = 0;
global C69: i64 = 0;
global C70: i64 = 0;
global C71: i64 = 0;
global C72: i64 = 0;
global C73: i64 = 0;
global C74: i64 = 0;
global C75: i64 = 0;
global C76: i64 = 0;
global C77: i64 = 0;
global C78: i64 = 0;
global C79: i64 = 0;
global C80: i64 = 0;
global C81: i64 = 0;
global C82: i64 = 0;
global C83: i64 = 0;
global C84: i64 = 0;
global C85: i64 = 0;
global C86: i64 = 0;
global C87: i64 = 0;
global C88: i64 = 0;
global C89: i64 = 0;
global C90: i64 = 0;
global C91: i64 = 0;
global C92: i64 = 0;
global C93: i64 = 0;
global C94: i64 = 0;
global C95: i64 = 0;
global C96: i64 = 0;
global C97: i64 = 0;
global C98: i64 = 0;
global C99: i64 = 0;
global C100: i64 = 0;
global C101: i64 = 0;
global C102: i64 = 0;
global C103: i64 = 0;
global C104: i64 = 0;
global C105: i64 = 0;
global C106: i64 = 0;
global C107: i64 = 0;
global C108: i64 = 0;
global C109: i64 = 0;
global C110: i64 = 0;
global C111: i64 = 0;
global C112: i64 = 0;
global C113: i64 = 0;
global C114: i64 = 0;
global C115: i64 = 0;
global C116: i64 = 0;
global C117: i64 = 0;
global C118: i64 = 0;
global C119: i64 = 0;
global C120: i64 = 0;
global C121: i64 = 0;
global C122: i64 = 0;
global C123: i64 = 0;
global C124: i64 = 0;
global C125: i64 = 0;
global C126: i64 = 0;
global C127: i64 = 0;
global C128: i64 = 0;
global C129: i64 = 0;
global C130: i64 = 0;
global C131: i64 = 0;
global C132: i64 = 0;
global C133: i64 = 0;
global C134: i64 = 0;
global C135: i64 = 0;
global C136: i64 = 0;
global C137: i64 = 0;
global C138: i64 = 0;
global C139: i64 = 0;

tree N {
    v: i64;
    child kids: [N];
    traversal p0() { if self.v == 0 { return; } for x in self.kids { if x.v != 0 { x.p0(); } } C0 = C0 + self.v; }
    traversal p1() { for x in self.kids { x.p1(); } C1 = C1 + self.v; }
    traversal p2() { if self.v == 2 { return; } for x in self.kids { x.p2(); } C2 = C2 + self.v; }
    traversal p3() { for x in self.kids { if x.v != 3 { x.p3(); } } C3 = C3 + self.v; }
    traversal p4() { if self.v == 4 { return; } for x in self.kids { x.p4(); } C4 = C4 + self.v; }
    traversal p5() { for x in self.kids { x.p5(); } C5 = C5 + self.v; }
    traversal p6() { if self.v == 6 { return; } for x in self.kids { if x.v != 1 { x.p6(); } } C6 = C6 + self.v; }
    traversal p7() { for x in self.kids { x.p7(); } C7 = C7 + self.v; }
    traversal p8() { if self.v == 1 { return; } for x in self.kids { x.p8(); } C8 = C8 + self.v; }
    traversal p9() { for x in self.kids { if x.v != 4 { x.p9(); } } C9 = C9 + self.v; }
    traversal p10() { if self.v == 3 { return; } for x in self.kids { x.p10(); } C10 = C10 + self.v; }
    traversal p11() { for x in self.kids { x.p11(); } C11 = C11 + self.v; }
    traversal p12() { if self.v == 5 { return; } for x in self.kids { if x.v != 2 { x.p12(); } } C12 = C12 + self.v; }
    traversal p13() { for x in self.kids { x.p13(); } C13 = C13 + self.v; }
    traversal p14() { if self.v == 0 { return; } for x in self.kids { x.p14(); } C14 = C14 + self.v; }
    traversal p15() { for x in self.kids { if x.v != 0 { x.p15(); } } C15 = C15 + self.v; }
    traversal p16() { if self.v == 2 { return; } for x in self.kids { x.p16(); } C16 = C16 + self.v; }
    traversal p17() { for x in self.kids { x.p17(); } C17 = C17 + self.v; }
    traversal p18() { if self.v == 4 { return; } for x in self.kids { if x.v != 3 { x.p18(); } } C18 = C18 + self.v; }
    traversal p19() { for x in self.kids { x.p19(); } C19 = C19 + self.v; }
    traversal p20() { if self.v == 6 { return; } for x in self.kids { x.p20(); } C20 = C20 + self.v; }
    traversal p21() { for x in self.kids { if x.v != 1 { x.p21(); } } C21 = C21 + self.v; }
    traversal p22() { if self.v == 1 { return; } for x in self.kids { x.p22(); } C22 = C22 + self.v; }
    traversal p23() { for x in self.kids { x.p23(); } C23 = C23 + self.v; }
    traversal p24() { if self.v == 3 { return; } for x in self.kids { if x.v != 4 { x.p24(); } } C24 = C24 + self.v; }
    traversal p25() { for x in self.kids { x.p25(); } C25 = C25 + self.v; }
    traversal p26() { if self.v == 5 { return; } for x in self.kids { x.p26(); } C26 = C26 + self.v; }
    traversal p27() { for x in self.kids { if x.v != 2 { x.p27(); } } C27 = C27 + self.v; }
    traversal p28() { if self.v == 0 { return; } for x in self.kids { x.p28(); } C28 = C28 + self.v; }
    traversal p29() { for x in self.kids { x.p29(); } C29 = C29 + self.v; }
    traversal p30() { if self.v == 2 { return; } for x in self.kids { if x.v != 0 { x.p30(); } } C30 = C30 + self.v; }
    traversal p31() { for x in self.kids { x.p31(); } C31 = C31 + self.v; }
    traversal p32() { if self.v == 4 { return; } for x in self.kids { x.p32(); } C32 = C32 + self.v; }
    traversal p33() { for x in self.kids { if x.v != 3 { x.p33(); } } C33 = C33 + self.v; }
    traversal p34() { if self.v == 6 { return; } for x in self.kids { x.p34(); } C34 = C34 + self.v; }
    traversal p35() { for x in self.kids { x.p35(); } C35 = C35 + self.v; }
    traversal p36() { if self.v == 1 { return; } for x in self.kids { if x.v != 1 { x.p36(); } } C36 = C36 + self.v; }
    traversal p37() { for x in self.kids { x.p37(); } C37 = C37 + self.v; }
    traversal p38() { if self.v == 3 { return; } for x in self.kids { x.p38(); } C38 = C38 + self.v; }
    traversal p39() { for x in self.kids { if x.v != 4 { x.p39(); } } C39 = C39 + self.v; }
    traversal p40() { if self.v == 5 { return; } for x in self.kids { x.p40(); } C40 = C40 + self.v; }
    traversal p41() { for x in self.kids { x.p41(); } C41 = C41 + self.v; }
    traversal p42() { if self.v == 0 { return; } for x in self.kids { if x.v != 2 { x.p42(); } } C42 = C42 + self.v; }
    traversal p43() { for x in self.kids { x.p43(); } C43 = C43 + self.v; }
    traversal p44() { if self.v == 2 { return; } for x in self.kids { x.p44(); } C44 = C44 + self.v; }
    traversal p45() { for x in self.kids { if x.v != 0 { x.p45(); } } C45 = C45 + self.v; }
    traversal p46() { if self.v == 4 { return; } for x in self.kids { x.p46(); } C46 = C46 + self.v; }
    traversal p47() { for x in self.kids { x.p47(); } C47 = C47 + self.v; }
    traversal p48() { if self.v == 6 { return; } for x in self.kids { if x.v != 3 { x.p48(); } } C48 = C48 + self.v; }
    traversal p49() { for x in self.kids { x.p49(); } C49 = C49 + self.v; }
    traversal p50() { if self.v == 1 { return; } for x in self.kids { x.p50(); } C50 = C50 + self.v; }
    traversal p51() { for x in self.kids { if x.v != 1 { x.p51(); } } C51 = C51 + self.v; }
    traversal p52() { if self.v == 3 { return; } for x in self.kids { x.p52(); } C52 = C52 + self.v; }
    traversal p53() { for x in self.kids { x.p53(); } C53 = C53 + self.v; }
    traversal p54() { if self.v == 5 { return; } for x in self.kids { if x.v != 4 { x.p54(); } } C54 = C54 + self.v; }
    traversal p55() { for x in self.kids { x.p55(); } C55 = C55 + self.v; }
    traversal p56() { if self.v == 0 { return; } for x in self.kids { x.p56(); } C56 = C56 + self.v; }
    traversal p57() { for x in self.kids { if x.v != 2 { x.p57(); } } C57 = C57 + self.v; }
    traversal p58() { if self.v == 2 { return; } for x in self.kids { x.p58(); } C58 = C58 + self.v; }
    traversal p59() { for x in self.kids { x.p59(); } C59 = C59 + self.v; }
    traversal p60() { if self.v == 4 { return; } for x in self.kids { if x.v != 0 { x.p60(); } } C60 = C60 + self.v; }
    traversal p61() { for x in self.kids { x.p61(); } C61 = C61 + self.v; }
    traversal p62() { if self.v == 6 { return; } for x in self.kids { x.p62(); } C62 = C62 + self.v; }
    traversal p63() { for x in self.kids { if x.v != 3 { x.p63(); } } C63 = C63 + self.v; }
    traversal p64() { if self.v == 1 { return; } for x in self.kids { x.p64(); } C64 = C64 + self.v; }
    traversal p65() { for x in self.kids { x.p65(); } C65 = C65 + self.v; }
    traversal p66() { if self.v == 3 { return; } for x in self.kids { if x.v != 1 { x.p66(); } } C66 = C66 + self.v; }
    traversal p67() { for x in self.kids { x.p67(); } C67 = C67 + self.v; }
    traversal p68() { if self.v == 5 { return; } for x in self.kids { x.p68(); } C68 = C68 + self.v; }
    traversal p69() { for x in self.kids { if x.v != 4 { x.p69(); } } C69 = C69 + self.v; }
    traversal p70() { if self.v == 0 { return; } for x in self.kids { x.p70(); } C70 = C70 + self.v; }
    traversal p71() { for x in self.kids { x.p71(); } C71 = C71 + self.v; }
    traversal p72() { if self.v == 2 { return; } for x in self.kids { if x.v != 2 { x.p72(); } } C72 = C72 + self.v; }
    traversal p73() { for x in self.kids { x.p73(); } C73 = C73 + self.v; }
    traversal p74() { if self.v == 4 { return; } for x in self.kids { x.p74(); } C74 = C74 + self.v; }
    traversal p75() { for x in self.kids { if x.v != 0 { x.p75(); } } C75 = C75 + self.v; }
    traversal p76() { if self.v == 6 { return; } for x in self.kids { x.p76(); } C76 = C76 + self.v; }
    traversal p77() { for x in self.kids { x.p77(); } C77 = C77 + self.v; }
    traversal p78() { if self.v == 1 { return; } for x in self.kids { if x.v != 3 { x.p78(); } } C78 = C78 + self.v; }
    traversal p79() { for x in self.kids { x.p79(); } C79 = C79 + self.v; }
    traversal p80() { if self.v == 3 { return; } for x in self.kids { x.p80(); } C80 = C80 + self.v; }
    traversal p81() { for x in self.kids { if x.v != 1 { x.p81(); } } C81 = C81 + self.v; }
    traversal p82() { if self.v == 5 { return; } for x in self.kids { x.p82(); } C82 = C82 + self.v; }
    traversal p83() { for x in self.kids { x.p83(); } C83 = C83 + self.v; }
    traversal p84() { if self.v == 0 { return; } for x in self.kids { if x.v != 4 { x.p84(); } } C84 = C84 + self.v; }
    traversal p85() { for x in self.kids { x.p85(); } C85 = C85 + self.v; }
    traversal p86() { if self.v == 2 { return; } for x in self.kids { x.p86(); } C86 = C86 + self.v; }
    traversal p87() { for x in self.kids { if x.v != 2 { x.p87(); } } C87 = C87 + self.v; }
    traversal p88() { if self.v == 4 { return; } for x in self.kids { x.p88(); } C88 = C88 + self.v; }
    traversal p89() { for x in self.kids { x.p89(); } C89 = C89 + self.v; }
    traversal p90() { if self.v == 6 { return; } for x in self.kids { if x.v != 0 { x.p90(); } } C90 = C90 + self.v; }
    traversal p91() { for x in self.kids { x.p91(); } C91 = C91 + self.v; }
    traversal p92() { if self.v == 1 { return; } for x in self.kids { x.p92(); } C92 = C92 + self.v; }
    traversal p93() { for x in self.kids { if x.v != 3 { x.p93(); } } C93 = C93 + self.v; }
    traversal p94() { if self.v == 3 { return; } for x in self.kids { x.p94(); } C94 = C94 + self.v; }
    traversal p95() { for x in self.kids { x.p95(); } C95 = C95 + self.v; }
    traversal p96() { if self.v == 5 { return; } for x in self.kids { if x.v != 1 { x.p96(); } } C96 = C96 + self.v; }
    traversal p97() { for x in self.kids { x.p97(); } C97 = C97 + self.v; }
    traversal p98() { if self.v == 0 { return; } for x in self.kids { x.p98(); } C98 = C98 + self.v; }
    traversal p99() { for x in self.kids { if x.v != 4 { x.p99(); } } C99 = C99 + self.v; }
    traversal p100() { if self.v == 2 { return; } for x in self.kids { x.p100(); } C100 = C100 + self.v; }
    traversal p101() { for x in self.kids { x.p101(); } C101 = C101 + self.v; }
    traversal p102() { if self.v == 4 { return; } for x in self.kids { if x.v != 2 { x.p102(); } } C102 = C102 + self.v; }
    traversal p103() { for x in self.kids { x.p103(); } C103 = C103 + self.v; }
    traversal p104() { if self.v == 6 { return; } for x in self.kids { x.p104(); } C104 = C104 + self.v; }
    traversal p105() { for x in self.kids { if x.v != 0 { x.p105(); } } C105 = C105 + self.v; }
    traversal p106() { if self.v == 1 { return; } for x in self.kids { x.p106(); } C106 = C106 + self.v; }
    traversal p107() { for x in self.kids { x.p107(); } C107 = C107 + self.v; }
    traversal p108() { if self.v == 3 { return; } for x in self.kids { if x.v != 3 { x.p108(); } } C108 = C108 + self.v; }
    traversal p109() { for x in self.kids { x.p109(); } C109 = C109 + self.v; }
    traversal p110() { if self.v == 5 { return; } for x in self.kids { x.p110(); } C110 = C110 + self.v; }
    traversal p111() { for x in self.kids { if x.v != 1 { x.p111(); } } C111 = C111 + self.v; }
    traversal p112() { if self.v == 0 { return; } for x in self.kids { x.p112(); } C112 = C112 + self.v; }
    traversal p113() { for x in self.kids { x.p113(); } C113 = C113 + self.v; }
    traversal p114() { if self.v == 2 { return; } for x in self.kids { if x.v != 4 { x.p114(); } } C114 = C114 + self.v; }
    traversal p115() { for x in self.kids { x.p115(); } C115 = C115 + self.v; }
    traversal p116() { if self.v == 4 { return; } for x in self.kids { x.p116(); } C116 = C116 + self.v; }
    traversal p117() { for x in self.kids { if x.v != 2 { x.p117(); } } C117 = C117 + self.v; }
    traversal p118() { if self.v == 6 { return; } for x in self.kids { x.p118(); } C118 = C118 + self.v; }
    traversal p119() { for x in self.kids { x.p119(); } C119 = C119 + self.v; }
    traversal p120() { if self.v == 1 { return; } for x in self.kids { if x.v != 0 { x.p120(); } } C120 = C120 + self.v; }
    traversal p121() { for x in self.kids { x.p121(); } C121 = C121 + self.v; }
    traversal p122() { if self.v == 3 { return; } for x in self.kids { x.p122(); } C122 = C122 + self.v; }
    traversal p123() { for x in self.kids { if x.v != 3 { x.p123(); } } C123 = C123 + self.v; }
    traversal p124() { if self.v == 5 { return; } for x in self.kids { x.p124(); } C124 = C124 + self.v; }
    traversal p125() { for x in self.kids { x.p125(); } C125 = C125 + self.v; }
    traversal p126() { if self.v == 0 { return; } for x in self.kids { if x.v != 1 { x.p126(); } } C126 = C126 + self.v; }
    traversal p127() { for x in self.kids { x.p127(); } C127 = C127 + self.v; }
    traversal p128() { if self.v == 2 { return; } for x in self.kids { x.p128(); } C128 = C128 + self.v; }
    traversal p129() { for x in self.kids { if x.v != 4 { x.p129(); } } C129 = C129 + self.v; }
    traversal p130() { if self.v == 4 { return; } for x in self.kids { x.p130(); } C130 = C130 + self.v; }
    traversal p131() { for x in self.kids { x.p131(); } C131 = C131 + self.v; }
    traversal p132() { if self.v == 6 { return; } for x in self.kids { if x.v != 2 { x.p132(); } } C132 = C132 + self.v; }
    traversal p133() { for x in self.kids { x.p133(); } C133 = C133 + self.v; }
    traversal p134() { if self.v == 1 { return; } for x in self.kids { x.p134(); } C134 = C134 + self.v; }
    traversal p135() { for x in self.kids { if x.v != 0 { x.p135(); } } C135 = C135 + self.v; }
    traversal p136() { if self.v == 3 { return; } for x in self.kids { x.p136(); } C136 = C136 + self.v; }
    traversal p137() { for x in self.kids { x.p137(); } C137 = C137 + self.v; }
    traversal p138() { if self.v == 5 { return; } for x in self.kids { if x.v != 3 { x.p138(); } } C138 = C138 + self.v; }
    traversal p139() { for x in self.kids { x.p139(); } C139 = C139 + self.v; }
}

fuse all(root: N) {
    root.p0();
    root.p1();
    root.p2();
    root.p3();
    root.p4();
    root.p5();
    root.p6();
    root.p7();
    root.p8();
    root.p9();
    root.p10();
    root.p11();
    root.p12();
    root.p13();
    root.p14();
    root.p15();
    root.p16();
    root.p17();
    root.p18();
    root.p19();
    root.p20();
    root.p21();
    root.p22();
    root.p23();
    root.p24();
    root.p25();
    root.p26();
    root.p27();
    root.p28();
    root.p29();
    root.p30();
    root.p31();
    root.p32();
    root.p33();
    root.p34();
    root.p35();
    root.p36();
    root.p37();
    root.p38();
    root.p39();
    root.p40();
    root.p41();
    root.p42();
    root.p43();
    root.p44();
    root.p45();
    root.p46();
    root.p47();
    root.p48();
    root.p49();
    root.p50();
    root.p51();
    root.p52();
    root.p53();
    root.p54();
    root.p55();
    root.p56();
    root.p57();
    root.p58();
    root.p59();
    root.p60();
    root.p61();
    root.p62();
    root.p63();
    root.p64();
    root.p65();
    root.p66();
    root.p67();
    root.p68();
    root.p69();
    root.p70();
    root.p71();
    root.p72();
    root.p73();
    root.p74();
    root.p75();
    root.p76();
    root.p77();
    root.p78();
    root.p79();
    root.p80();
    root.p81();
    root.p82();
    root.p83();
    root.p84();
    root.p85();
    root.p86();
    root.p87();
    root.p88();
    root.p89();
    root.p90();
    root.p91();
    root.p92();
    root.p93();
    root.p94();
    root.p95();
    root.p96();
    root.p97();
    root.p98();
    root.p99();
    root.p100();
    root.p101();
    root.p102();
    root.p103();
    root.p104();
    root.p105();
    root.p106();
    root.p107();
    root.p108();
    root.p109();
    root.p110();
    root.p111();
    root.p112();
    root.p113();
    root.p114();
    root.p115();
    root.p116();
    root.p117();
    root.p118();
    root.p119();
    root.p120();
    root.p121();
    root.p122();
    root.p123();
    root.p124();
    root.p125();
    root.p126();
    root.p127();
    root.p128();
    root.p129();
    root.p130();
    root.p131();
    root.p132();
    root.p133();
    root.p134();
    root.p135();
    root.p136();
    root.p137();
    root.p138();
    root.p139();
}
