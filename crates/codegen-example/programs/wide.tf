// Seventy passes, each able to `return`, fused into one walk: a fused
// call may switch participants off, so the generated functions take a
// mask of their active participants, and with more than 64 of them the
// mask is a `u128`. The module must compile and run like the interpreter.

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

tree N {
    v: i64;
    child kids: [N];
    traversal p0() { if self.v == 0 { return; } for x in self.kids { x.p0(); } C0 = C0 + self.v; }
    traversal p1() { if self.v == 1 { return; } for x in self.kids { x.p1(); } C1 = C1 + self.v; }
    traversal p2() { if self.v == 2 { return; } for x in self.kids { x.p2(); } C2 = C2 + self.v; }
    traversal p3() { if self.v == 3 { return; } for x in self.kids { x.p3(); } C3 = C3 + self.v; }
    traversal p4() { if self.v == 4 { return; } for x in self.kids { x.p4(); } C4 = C4 + self.v; }
    traversal p5() { if self.v == 5 { return; } for x in self.kids { x.p5(); } C5 = C5 + self.v; }
    traversal p6() { if self.v == 6 { return; } for x in self.kids { x.p6(); } C6 = C6 + self.v; }
    traversal p7() { if self.v == 0 { return; } for x in self.kids { x.p7(); } C7 = C7 + self.v; }
    traversal p8() { if self.v == 1 { return; } for x in self.kids { x.p8(); } C8 = C8 + self.v; }
    traversal p9() { if self.v == 2 { return; } for x in self.kids { x.p9(); } C9 = C9 + self.v; }
    traversal p10() { if self.v == 3 { return; } for x in self.kids { x.p10(); } C10 = C10 + self.v; }
    traversal p11() { if self.v == 4 { return; } for x in self.kids { x.p11(); } C11 = C11 + self.v; }
    traversal p12() { if self.v == 5 { return; } for x in self.kids { x.p12(); } C12 = C12 + self.v; }
    traversal p13() { if self.v == 6 { return; } for x in self.kids { x.p13(); } C13 = C13 + self.v; }
    traversal p14() { if self.v == 0 { return; } for x in self.kids { x.p14(); } C14 = C14 + self.v; }
    traversal p15() { if self.v == 1 { return; } for x in self.kids { x.p15(); } C15 = C15 + self.v; }
    traversal p16() { if self.v == 2 { return; } for x in self.kids { x.p16(); } C16 = C16 + self.v; }
    traversal p17() { if self.v == 3 { return; } for x in self.kids { x.p17(); } C17 = C17 + self.v; }
    traversal p18() { if self.v == 4 { return; } for x in self.kids { x.p18(); } C18 = C18 + self.v; }
    traversal p19() { if self.v == 5 { return; } for x in self.kids { x.p19(); } C19 = C19 + self.v; }
    traversal p20() { if self.v == 6 { return; } for x in self.kids { x.p20(); } C20 = C20 + self.v; }
    traversal p21() { if self.v == 0 { return; } for x in self.kids { x.p21(); } C21 = C21 + self.v; }
    traversal p22() { if self.v == 1 { return; } for x in self.kids { x.p22(); } C22 = C22 + self.v; }
    traversal p23() { if self.v == 2 { return; } for x in self.kids { x.p23(); } C23 = C23 + self.v; }
    traversal p24() { if self.v == 3 { return; } for x in self.kids { x.p24(); } C24 = C24 + self.v; }
    traversal p25() { if self.v == 4 { return; } for x in self.kids { x.p25(); } C25 = C25 + self.v; }
    traversal p26() { if self.v == 5 { return; } for x in self.kids { x.p26(); } C26 = C26 + self.v; }
    traversal p27() { if self.v == 6 { return; } for x in self.kids { x.p27(); } C27 = C27 + self.v; }
    traversal p28() { if self.v == 0 { return; } for x in self.kids { x.p28(); } C28 = C28 + self.v; }
    traversal p29() { if self.v == 1 { return; } for x in self.kids { x.p29(); } C29 = C29 + self.v; }
    traversal p30() { if self.v == 2 { return; } for x in self.kids { x.p30(); } C30 = C30 + self.v; }
    traversal p31() { if self.v == 3 { return; } for x in self.kids { x.p31(); } C31 = C31 + self.v; }
    traversal p32() { if self.v == 4 { return; } for x in self.kids { x.p32(); } C32 = C32 + self.v; }
    traversal p33() { if self.v == 5 { return; } for x in self.kids { x.p33(); } C33 = C33 + self.v; }
    traversal p34() { if self.v == 6 { return; } for x in self.kids { x.p34(); } C34 = C34 + self.v; }
    traversal p35() { if self.v == 0 { return; } for x in self.kids { x.p35(); } C35 = C35 + self.v; }
    traversal p36() { if self.v == 1 { return; } for x in self.kids { x.p36(); } C36 = C36 + self.v; }
    traversal p37() { if self.v == 2 { return; } for x in self.kids { x.p37(); } C37 = C37 + self.v; }
    traversal p38() { if self.v == 3 { return; } for x in self.kids { x.p38(); } C38 = C38 + self.v; }
    traversal p39() { if self.v == 4 { return; } for x in self.kids { x.p39(); } C39 = C39 + self.v; }
    traversal p40() { if self.v == 5 { return; } for x in self.kids { x.p40(); } C40 = C40 + self.v; }
    traversal p41() { if self.v == 6 { return; } for x in self.kids { x.p41(); } C41 = C41 + self.v; }
    traversal p42() { if self.v == 0 { return; } for x in self.kids { x.p42(); } C42 = C42 + self.v; }
    traversal p43() { if self.v == 1 { return; } for x in self.kids { x.p43(); } C43 = C43 + self.v; }
    traversal p44() { if self.v == 2 { return; } for x in self.kids { x.p44(); } C44 = C44 + self.v; }
    traversal p45() { if self.v == 3 { return; } for x in self.kids { x.p45(); } C45 = C45 + self.v; }
    traversal p46() { if self.v == 4 { return; } for x in self.kids { x.p46(); } C46 = C46 + self.v; }
    traversal p47() { if self.v == 5 { return; } for x in self.kids { x.p47(); } C47 = C47 + self.v; }
    traversal p48() { if self.v == 6 { return; } for x in self.kids { x.p48(); } C48 = C48 + self.v; }
    traversal p49() { if self.v == 0 { return; } for x in self.kids { x.p49(); } C49 = C49 + self.v; }
    traversal p50() { if self.v == 1 { return; } for x in self.kids { x.p50(); } C50 = C50 + self.v; }
    traversal p51() { if self.v == 2 { return; } for x in self.kids { x.p51(); } C51 = C51 + self.v; }
    traversal p52() { if self.v == 3 { return; } for x in self.kids { x.p52(); } C52 = C52 + self.v; }
    traversal p53() { if self.v == 4 { return; } for x in self.kids { x.p53(); } C53 = C53 + self.v; }
    traversal p54() { if self.v == 5 { return; } for x in self.kids { x.p54(); } C54 = C54 + self.v; }
    traversal p55() { if self.v == 6 { return; } for x in self.kids { x.p55(); } C55 = C55 + self.v; }
    traversal p56() { if self.v == 0 { return; } for x in self.kids { x.p56(); } C56 = C56 + self.v; }
    traversal p57() { if self.v == 1 { return; } for x in self.kids { x.p57(); } C57 = C57 + self.v; }
    traversal p58() { if self.v == 2 { return; } for x in self.kids { x.p58(); } C58 = C58 + self.v; }
    traversal p59() { if self.v == 3 { return; } for x in self.kids { x.p59(); } C59 = C59 + self.v; }
    traversal p60() { if self.v == 4 { return; } for x in self.kids { x.p60(); } C60 = C60 + self.v; }
    traversal p61() { if self.v == 5 { return; } for x in self.kids { x.p61(); } C61 = C61 + self.v; }
    traversal p62() { if self.v == 6 { return; } for x in self.kids { x.p62(); } C62 = C62 + self.v; }
    traversal p63() { if self.v == 0 { return; } for x in self.kids { x.p63(); } C63 = C63 + self.v; }
    traversal p64() { if self.v == 1 { return; } for x in self.kids { x.p64(); } C64 = C64 + self.v; }
    traversal p65() { if self.v == 2 { return; } for x in self.kids { x.p65(); } C65 = C65 + self.v; }
    traversal p66() { if self.v == 3 { return; } for x in self.kids { x.p66(); } C66 = C66 + self.v; }
    traversal p67() { if self.v == 4 { return; } for x in self.kids { x.p67(); } C67 = C67 + self.v; }
    traversal p68() { if self.v == 5 { return; } for x in self.kids { x.p68(); } C68 = C68 + self.v; }
    traversal p69() { if self.v == 6 { return; } for x in self.kids { x.p69(); } C69 = C69 + self.v; }
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
}
