// The Mexican Train hub's enclosure: parametric OpenSCAD (tested with OpenSCAD 2021.01).
//
// Four printed parts, each exported in the position it is printed in (hardware/README.md,
// step 2), on the bed at z = 0, none needing supports:
//   openscad -D 'part="top"'      -o hub-top.stl      hub.scad   // its top face on the bed
//   openscad -D 'part="base"'     -o hub-base.stl     hub.scad   // as it lies
//   openscad -D 'part="retainer"' -o hub-retainer.stl hub.scad   // as it lies
//   openscad -D 'part="marker"'   -o hub-marker.stl   hub.scad   // one per train marker
// part="all" shows the hub assembled (z = 0 is the table). Every part of the build
// (hardware/parts.toml's sizes) takes the room of a few boxes, echoed as "room" lines, and
// the printed features next to them are echoed as "fixture" boxes: tests/test_enclosure.py
// checks that none overlap. part="fit" renders the same overlaps in CSG: probe=-1 the
// build's parts among themselves, probe=-2 all of them against the printed parts, n: part
// n against the printed parts; each must render nothing ("Current top level object is
// empty").
//
// The hub is one low disc. Per slot (slot 1 at 12 o'clock, then clockwise as seen from
// above): a domino slot open to the rim, and at its inner end the marker seat (the hall
// sensor under a skin) with the button beside it, clockwise. In the middle the centre
// button inside the LED ring's channel (0.6 mm of plastic over the ring diffuses it).
// Under the top: one printed retainer holds every switch, sensor and the ring in their
// pockets and presses the boards into their cradles; the base carries the Pi Zero 2 W
// under the centre, the hub board, the Pico, the amplifier and the speaker, which fires
// down into a channel that leads out under the rim (the cables leave through it too).
// Every part's size comes from hardware/parts.toml; tests/test_enclosure.py holds the
// numbers below to it.

part = "all";          // "top", "base", "retainer", "marker", "all" or "fit"
probe = -1;            // part="fit": -1 the build's parts among themselves, -2 all of them against the print, n: part n against the print
slots = 8;             // train slots around the rim
domino_set = 12;       // 12, 15 or 18: the largest double of the set

// Domino sizes (length, width, thickness in mm) of common sets.
function domino(s) =
    s == 12 ? [44.5, 22.5, 9.5] :
    s == 15 ? [48, 24, 10] :
    s == 18 ? [52, 26, 10] :
    assert(false, str("domino_set must be 12, 15 or 18, not ", s));

dom = domino(domino_set);
clearance = 0.6;                    // on each side of a domino in its slot
slot_w = dom[1] + 2 * clearance;    // slot width across
slot_l = 0.4 * dom[0] + clearance;  // the slot holds 40 % of the domino; the rest lies outside
slot_depth = 7;                     // how deep a domino sits in its slot

diameter = 150;                     // the hub's outside diameter, without dominoes
R = diameter / 2;
height = 21;                        // the top, from the table to its top face
plate = 4.5;                        // the top plate
wall = 2.4;
lip = 1.0;                          // plastic over a switch body, round its cap
skin = 1.4;                         // over a hall sensor, under its marker
diffuser = 0.6;                     // over the LED ring
slot_floor = height - slot_depth;   // where a train's first domino lies
slot_floor_t = 1.6;                 // the slot's floor

// Parts' sizes (hardware/parts.toml says where each comes from).
marker_d = 14;                      // a train marker's foot
marker_seat = marker_d + 0.4;
marker_seat_depth = 1.5;
magnet = [6, 3];                    // disc magnet: diameter, thickness
sensor = [4.1, 3.1, 1.6];           // A3144, flat TO-92 ("UA"): width, height, thickness
switch_body = [12, 12, 3.5];        // B3F-4055 tactile switch body
switch_legs = 3.5;                  // its legs below the body
button_hole = 11;                   // for the switch's round cap
ring = [52.3, 65.6, 3.6];           // 24-pixel WS2812B ring: inner, outer diameter, thickness
pi = [65, 30, 1.2];                 // Raspberry Pi Zero 2 W board
pi_holes = [58, 23];                // its mounting holes, centre to centre
pi_parts = 3.2;                     // its tallest parts above the board (USB, HDMI)
pi_header = [52, 28, 5.6];          // right-angle 2x20 header with its crimp housings: along the board, out from its edge, up
pico = [51, 21, 1.0];               // Raspberry Pi Pico
pico_holes = [47, 11.4];
pico_parts = 3.0;                   // its USB socket
usb_plug = [22, 12, 8];             // the OTG cable's micro-B plug beyond the board's end
amp = [19.4, 17.8, 1.6];            // MAX98357A breakout, speaker wires soldered (no terminal block)
amp_parts = 2.0;
speaker = [40, 20, 5.8];            // PUI AS04008CO-R
board = [70, 20, 1.6];              // the hub board (perfboard, cut to size)
board_plugs = 16;                   // its right-angle 3-pin headers with their housings, out from each long edge
board_parts = 5.2;                  // how high they stand over the board
capacitor = [8, 13];                // 1000 uF: diameter, length (lies on the floor)
insert_m3 = [4.0, 5.7];             // heat-set insert M3: hole diameter, length
screw_st = [1.8, 4.5];              // self-tapping screw ST2.2: pilot hole, length

$fn = 40;
eps = 0.01;
big = 120;

slot_r = R - slot_l;                                   // radius of a slot's inner end
pair_r = slot_r - 2.5 - marker_seat / 2;               // radius of the marker seats and buttons
pair_gap = 1.6;                                        // between a marker seat and its button
button_off = (marker_seat / 2 + pair_gap + switch_body[0] / 2) / pair_r * 180 / PI;  // degrees
ring_r = [ring[0] / 2 - 0.6, ring[1] / 2 + 0.6];      // the ring's channel
plate_under = height - plate;
retainer_t = 1.5;
retainer_r = slot_r - 2.5;
retainer_z = plate_under - retainer_t;                 // the retainer's underside
retainer_screw_r = 21;
floor_t = 2;
base_r = R - wall - 0.4;
channel = [18, 4];                                     // the speaker's channel: width, height (the speaker spans it)
strip_t = channel[1] + 1.6;                            // the speaker's bed and the strip over the channel
screw_r = R - wall - 5;
base_pad = 3.5;                                        // the base's thickness round a screw
counterbore = 2.5;                                     // for the M3 screw's pan head, from below
screw_m3 = 6;                                          // M3 x 6 pan head, base to top
insert_hole = 8;

// Where each part lies (x, y, angle) in the assembled hub, seen from above.
pi_at = [0, 12, 0];            // under the centre; its header faces slot 1
board_at = [0, -29.5, 0];      // the hub board, towards slot 5, its plugs between the Pi and the rim
pico_at = [-48, -5, 90];       // towards slot 7, its USB plug towards slot 8
amp_at = [46.5, -25, 0];       // between slots 3 and 4
capacitor_at = [42, 36, 0];    // towards slot 2, lying on the floor
channel_angle = 10;            // the speaker's channel runs out to the rim just past slot 3
speaker_r = 50;                // the speaker lies across the channel, face down, this far out
speaker_at = [speaker_r * cos(channel_angle), speaker_r * sin(channel_angle), channel_angle + 90];

// Heights, from the table.
pi_post = 3;
pico_post = 3;
pico_post_d = 4;               // no wider than the Pico's end: its USB plug starts there
board_post = 3;
pi_z = floor_t + pi_post;
pico_z = floor_t + pico_post;
board_z = floor_t + board_post;
amp_z = floor_t;
speaker_z = strip_t;

assert(diameter <= 150 && slot_floor <= 15, "the hub must stay within 150 mm and its slots within 15 mm of the table");
assert(pair_r - marker_seat / 2 > ring_r[1] + 2, "the markers overlap the LED ring: make the slots shorter or the hub bigger");
assert(2 * PI * pair_r / slots > marker_seat + pair_gap + switch_body[0] + 3, "too many slots for the markers and buttons at this size");
assert(2 * PI * slot_r / slots > slot_w + 4, "too many slots for this domino size at this diameter");
assert(slot_depth >= 1 && slot_depth < dom[2], "a domino must stand out of its slot");
assert(plate - lip >= switch_body[2], "the plate is too thin for the switch bodies");
assert(plate - marker_seat_depth - skin >= sensor[2], "the plate is too thin for the sensors");
assert(plate - diffuser >= ring[2], "the plate is too thin for the LED ring");

// Where slot n (1-based) points, in degrees counter-clockwise from +x: slot 1 at 12
// o'clock, the next ones clockwise as seen from above.
function slot_angle(n) = 90 - (n - 1) * 360 / slots;
function polar(a, r) = [r * cos(a), r * sin(a), 0];

module at_slot(n, r) { rotate([0, 0, slot_angle(n)]) translate([r, 0, 0]) children(); }
module at_button(n) { rotate([0, 0, slot_angle(n) - button_off]) translate([pair_r, 0, 0]) children(); }
module placed(p) { translate([p[0], p[1], 0]) rotate([0, 0, p[2]]) children(); }
module screw_spots() { for (k = [0 : 3]) rotate([0, 0, slot_angle(1) + 180 / slots + 90 * k + 45]) translate([screw_r, 0, 0]) children(); }
module retainer_spots() { for (k = [0 : 3]) rotate([0, 0, 45 + 90 * k]) translate([retainer_screw_r, 0, 0]) children(); }
module box(size, z) { translate([-size[0] / 2, -size[1] / 2, z]) cube(size); }

// The figures the tests and the guide check, and a maker may want.
echo(str("footprint_mm=", diameter));
echo(str("slot_floor_mm=", slot_floor));
echo(str("top_height_mm=", height));
for (n = [1 : slots])
    echo(str("slot ", n, " angle=", slot_angle(n), " inner_r=", slot_r, " width=", slot_w,
             " length=", slot_l, " depth=", slot_depth, " floor_z=", slot_floor));
echo(str("domino set=", domino_set, " length=", dom[0], " width=", dom[1], " thickness=", dom[2]));
echo(str("hole m3_insert diameter=", insert_m3[0], " depth=", insert_hole, " length=", insert_m3[1],
         " screw=", screw_m3, " reach=", screw_m3 - (base_pad - counterbore) - 0.2));
echo(str("hole pi_screw diameter=", screw_st[0], " depth=", pi_post + floor_t - 0.6, " length=", screw_st[1], " board=", pi[2]));
echo(str("hole pico_screw diameter=", screw_st[0], " depth=", pico_post + floor_t - 0.6, " length=", screw_st[1], " board=", pico[2]));
echo(str("hole retainer_screw diameter=", screw_st[0], " depth=", plate - 1, " length=", screw_st[1], " board=", retainer_t));

// ---------------------------------------------------------------- the top
module slot_cut(n) {
    at_slot(n, slot_r) translate([0, -slot_w / 2, slot_floor]) cube([slot_l + 1, slot_w, slot_depth + 1]);
}

module slot_boss(n) {
    intersection() {
        at_slot(n, slot_r - 2) translate([0, -slot_w / 2 - 2, slot_floor - slot_floor_t]) cube([slot_l + 3, slot_w + 4, height - slot_floor + slot_floor_t]);
        cylinder(r = R - eps, h = height, $fn = big);
    }
}

module marker_cut(n) {
    at_slot(n, pair_r) {
        translate([0, 0, height - marker_seat_depth]) cylinder(d = marker_seat, h = marker_seat_depth + 1);
        box([sensor[0] + 0.5, sensor[1] + 0.5, plate - marker_seat_depth - skin + 1], plate_under - 1);  // sensor
    }
}

module button_cut() {
    translate([0, 0, plate_under - 1]) cylinder(d = button_hole, h = plate + 2);
    box([switch_body[0] + 0.4, switch_body[1] + 0.4, plate - lip + 1], plate_under - 1);
}

module top_assembled() {
    difference() {
        union() {
            difference() {
                cylinder(r = R, h = height, $fn = big);
                translate([0, 0, -1]) cylinder(r = R - wall, h = plate_under + 1, $fn = big);
            }
            for (n = [1 : slots]) slot_boss(n);
            screw_spots() translate([0, 0, base_pad + 0.2]) cylinder(d = 9, h = height - base_pad - 0.2);
        }
        for (n = [1 : slots]) { slot_cut(n); marker_cut(n); at_button(n) button_cut(); }
        button_cut();                                                             // the centre button
        translate([0, 0, plate_under - 1]) difference() {                        // the ring's channel
            cylinder(r = ring_r[1], h = plate + 1 - diffuser, $fn = 96);
            translate([0, 0, -1]) cylinder(r = ring_r[0], h = plate + 3, $fn = 96);
        }
        screw_spots() translate([0, 0, base_pad]) cylinder(d = insert_m3[0], h = insert_hole);
        retainer_spots() translate([0, 0, plate_under - 1]) cylinder(d = screw_st[0], h = plate);
        rotate([0, 0, channel_angle]) translate([base_r - 2, -channel[0] / 2, -1])     // sound and cables out
            cube([wall + 4, channel[0], channel[1] + 1]);
    }
}

// ---------------------------------------------------------------- the retainer
// One plate under the top's plate: it holds the switches, the sensors and the ring up in
// their pockets (no glue), and its pins press the hub board and the amplifier into their
// cradles when the hub is closed.
hold_pins = [
    [board_at[0] - 20, board_at[1], board_z + board[2]],
    [board_at[0] + 20, board_at[1], board_z + board[2]],
    [amp_at[0] - 4, amp_at[1] + amp[1] / 2 - 1.6, amp_z + amp[2]],                  // the amplifier's edge, clear of its chips
];
hold_pin_d = 4;

module retainer_assembled() {
    difference() {
        union() {
            translate([0, 0, retainer_z]) cylinder(r = retainer_r, h = retainer_t, $fn = big);
            for (p = hold_pins) translate([p[0], p[1], p[2] + 0.2]) cylinder(d = hold_pin_d, h = retainer_z - p[2]);
        }
        for (n = [1 : slots]) {
            at_button(n) leg_holes();
            at_slot(n, pair_r) translate([-1.5, sensor[1] / 2 + 0.5, retainer_z - 1]) cube([3, 4, retainer_t + 2]);
        }
        leg_holes();                                                              // the centre switch
        rotate([0, 0, slot_angle(1)]) translate([ring_r[0] + 1, -3, retainer_z - 1]) cube([5, 6, retainer_t + 2]);  // ring wires
        retainer_spots() translate([0, 0, retainer_z - 1]) cylinder(d = 2.6, h = retainer_t + 2);
    }
}

module leg_holes() {
    for (x = [-1, 1]) translate([x * 6.25 - 1.2, -4.2, retainer_z - 1]) cube([2.4, 8.4, retainer_t + 2]);
}

// ---------------------------------------------------------------- the base
module posts(spacing, d, h, hole, z) {
    for (x = [-1, 1], y = [-1, 1]) translate([x * spacing[0] / 2, y * spacing[1] / 2, z])
        difference() {
            cylinder(d = d, h = h);
            translate([0, 0, h - (hole[1])]) cylinder(d = hole[0], h = hole[1] + 1);
        }
}

module cradle(size, h) {
    difference() {
        box([size[0] + 0.6 + 2.4, size[1] + 0.6 + 2.4, h], floor_t - eps);
        box([size[0] + 0.6, size[1] + 0.6, h + 1], floor_t);
        box([size[0] - 6, size[1] + 6, h + 1], floor_t + 0.6);                  // wires out of two sides
    }
}

module base_assembled() {
    difference() {
        union() {
            cylinder(r = base_r, h = floor_t, $fn = big);
            rotate([0, 0, channel_angle]) intersection() {                          // the speaker's bed and the strip to the rim
                union() {
                    translate([speaker_r - speaker_bed[0] / 2, -speaker_bed[1] / 2, 0]) cube([speaker_bed[0], speaker_bed[1], strip_t]);
                    translate([speaker_r, -channel[0] / 2 - 1.6, 0]) cube([base_r, channel[0] + 3.2, strip_t]);
                }
                rotate([0, 0, -channel_angle]) cylinder(r = base_r, h = strip_t, $fn = big);
            }
            screw_spots() cylinder(d = 9, h = base_pad);
            placed(pi_at) posts(pi_holes, 5.5, pi_post, [screw_st[0], pi_post + floor_t - 0.6], floor_t - eps);
            placed(pico_at) posts(pico_holes, pico_post_d, pico_post, [screw_st[0], pico_post + floor_t - 0.6], floor_t - eps);
            placed(board_at) for (x = [-1, 1]) translate([x * (board[0] / 2 - 3), 0, floor_t - eps]) box([4, board[1] - 4, board_post], 0);
            placed(board_at) cradle(board, board_post + board[2]);
            placed(amp_at) cradle(amp, amp[2]);
            placed(speaker_at) for (s = [-1, 1])                                   // the speaker's side guides
                translate([0, s * speaker_guide_y, 0]) box([speaker[0], 1.6, 2.5], strip_t - eps);
        }
        rotate([0, 0, channel_angle]) {
            translate([speaker_r - 9, -channel[0] / 2, -1]) cube([base_r, channel[0], channel[1] + 1]);  // the channel, open below
            translate([speaker_r - 9, -channel[0] / 2, -1]) cube([18, channel[0], strip_t + 2]);        // under the speaker
            translate([speaker_r + speaker[1] / 2 + 2, -channel[0] / 2, -1]) cube([6, channel[0], strip_t + 2]);  // the cables' way in
        }
        screw_spots() {                                                          // M3 from below, pan head in a counterbore
            translate([0, 0, -1]) cylinder(d = 3.4, h = base_pad + 2);
            translate([0, 0, -1]) cylinder(d = 6.5, h = counterbore + 1);
        }
    }
}

speaker_bed = [speaker[1] + 6, speaker[0] + 2];        // under the speaker: along the channel, across it
speaker_guide_y = speaker[1] / 2 + 1.1;                  // the guides' middles, out from the speaker's

// ---------------------------------------------------------------- the marker
module marker() {
    difference() {
        union() {
            cylinder(d = marker_d - 0.4, h = 3);                                  // foot, fits the seat
            cylinder(d = 9, h = 14);                                               // a stack to pick up
            translate([0, 0, 14]) cylinder(d1 = 9, d2 = 4, h = 3);                 // a cone: no overhang
        }
        translate([0, 0, -1]) cylinder(d = magnet[0] + 0.2, h = magnet[1] + 1.2); // the magnet's seat, from below
    }
}

// ---------------------------------------------------------------- the build's parts
// Each part of the build as the room it takes (with its plugs and wires' way out), in
// boxes: [name, group, pose [x, y, angle], [[[x, y, bottom z] of a box's middle, size], ...]]
// in the part's own frame. part="fit" renders them; the "room" echoes give them to the tests.
function legs() = [for (x = [-1, 1]) [[x * 6.25, 0, plate_under - switch_legs], [1.6, 7.6, switch_legs]]];
function button_pose(n) = let (a = slot_angle(n) - button_off) [pair_r * cos(a), pair_r * sin(a), a];
rooms = concat([
    ["pi", 0, pi_at, [
        [[0, 0, pi_z], pi],
        [[0, 0, pi_z + pi[2]], [pi[0] - 6, pi[1], pi_parts]],
        [[0, pi[1] / 2 - 6 + pi_header[1] / 2, pi_z + pi[2]], pi_header]]],
    ["pico", 1, pico_at, [
        [[0, 0, pico_z], pico],
        [[0, 0, pico_z + pico[2]], [pico[0] - 4, pico[1], pico_parts]],
        [[pico[0] / 2 + usb_plug[0] / 2, 0, pico_z + pico[2] + 1.5 - usb_plug[2] / 2], usb_plug]]],
    ["board", 2, board_at, concat([
        [[0, 0, board_z], board],
        [[0, 0, board_z + board[2]], [24, 10, board_parts]]],
        [for (s = [-1, 1]) [[0, s * (board[1] / 2 - 3 + (board_plugs + 3) / 2), board_z + board[2]], [board[0], board_plugs + 3, board_parts]]])],
    ["amp", 3, amp_at, [
        [[0, 0, amp_z], amp],
        [[0, 0, amp_z + amp[2]], [amp[0] - 2, amp[1] - 8, amp_parts]]]],
    ["speaker", 4, speaker_at, [[[0, 0, speaker_z], speaker]]],
    ["capacitor", 5, capacitor_at, [[[0, 0, floor_t], [capacitor[1], capacitor[0], capacitor[0]]]]],   // lying: its box
    ["switch_centre", 6, [0, 0, 0], legs()]],
    [for (n = [1 : slots]) [str("switch_", n), 6, button_pose(n), legs()]]);

// The printed features beside those parts, as boxes the same way (a post or a pin by the
// box round it): none may overlap a room.
function ring_of(spacing, d, h, z) = [for (x = [-1, 1], y = [-1, 1]) [[x * spacing[0] / 2, y * spacing[1] / 2, z], [d, d, h]]];
function walls_of(size, h) = let (o = [size[0] + 0.6 + 2.4, size[1] + 0.6 + 2.4]) [
    for (s = [-1, 1]) [[s * (o[0] - 1.2) / 2, 0, floor_t], [1.2, o[1], h]],
    for (s = [-1, 1]) [[0, s * (o[1] - 1.2) / 2, floor_t], [o[0], 1.2, h]]];
function screw_pose(k) = let (a = slot_angle(1) + 180 / slots + 90 * k + 45) [screw_r * cos(a), screw_r * sin(a), a];
fixtures = concat([
    ["pi_posts", pi_at, ring_of(pi_holes, 5.5, pi_post - eps, floor_t)],
    ["pico_posts", pico_at, ring_of(pico_holes, pico_post_d, pico_post - eps, floor_t)],
    ["board_cradle", board_at, concat(walls_of(board, board_post + board[2]),
        [for (x = [-1, 1]) [[x * (board[0] / 2 - 3), 0, floor_t], [4, board[1] - 4, board_post - eps]]])],
    ["amp_cradle", amp_at, walls_of(amp, amp[2])],
    ["speaker_guides", speaker_at, [for (s = [-1, 1]) [[0, s * speaker_guide_y, strip_t], [speaker[0], 1.6, 2.5]]]],
    ["speaker_bed", [0, 0, channel_angle], [[[speaker_r, 0, 0], [speaker_bed[0], speaker_bed[1], strip_t]],
        [[(speaker_r + base_r) / 2, 0, 0], [base_r - speaker_r, channel[0] + 3.2, strip_t]]]]],
    [for (k = [0 : 3]) [str("top_screw_boss_", k), screw_pose(k), [[[0, 0, base_pad + 0.2], [9, 9, height - base_pad - 0.2]]]]],
    [for (n = [1 : slots]) let (a = slot_angle(n), z = slot_floor - slot_floor_t)
        [str("slot_boss_", n), [(slot_r - 2) * cos(a), (slot_r - 2) * sin(a), a], [[[(slot_l + 3) / 2, 0, z], [slot_l + 3, slot_w + 4, height - z]]]]],
    [for (i = [0 : len(hold_pins) - 1]) let (p = hold_pins[i])
        [str("hold_pin_", i), [p[0], p[1], 0], [[[0, 0, p[2] + 0.2], [hold_pin_d, hold_pin_d, retainer_z - p[2] - 0.2]]]]]);

for (r = rooms) for (b = r[3]) echo(str("room ", r[0], " pose=", r[2], " at=", b[0], " size=", b[1]));
for (f = fixtures) for (b = f[2]) echo(str("fixture ", f[0], " pose=", f[1], " at=", b[0], " size=", b[1]));
echo(str("inside radius=", base_r, " under=", retainer_z, " retainer_r=", retainer_r));

// gap: how much smaller each box is on every side (part="fit": boxes that only touch are
// not an overlap, the same tolerance as the tests' check of the echoes).
module build_parts(only = -1, gap = 0) {
    for (r = rooms) if (only < 0 || only == r[1]) placed(r[2]) for (b = r[3])
        translate([b[0][0], b[0][1], 0]) box(b[1] - [2, 2, 2] * gap, b[0][2] + gap);
}

fit_gap = 0.01;
module clashes() {
    for (i = [0 : 6], j = [0 : 6]) if (i < j) intersection() { build_parts(i, fit_gap); build_parts(j, fit_gap); }
}

module printed_assembled() {
    top_assembled();
    retainer_assembled();
    base_assembled();
}

if (part == "top") translate([0, 0, height]) rotate([180, 0, 0]) top_assembled();
else if (part == "base") base_assembled();
else if (part == "retainer") translate([0, 0, retainer_z + retainer_t]) rotate([180, 0, 0]) retainer_assembled();
else if (part == "marker") marker();
else if (part == "all") {
    color("ivory") top_assembled();
    color("orange") retainer_assembled();
    color("lightgrey") base_assembled();
    color("green") build_parts();
}
else if (part == "fit") {
    if (probe == -1) clashes();
    else intersection() { printed_assembled(); build_parts(probe == -2 ? -1 : probe, fit_gap); }
}
else assert(false, str("part must be top, base, retainer, marker, all or fit, not ", part));
