// The Mexican Train hub's enclosure: parametric OpenSCAD (tested with OpenSCAD 2021.01).
//
// Three parts, each exported on its own (hardware/README.md, step 2):
//   openscad -D 'part="top"'    -o hub-top.stl    hub.scad   // print upside down, white PLA
//   openscad -D 'part="base"'   -o hub-base.stl   hub.scad   // print as it lies
//   openscad -D 'part="marker"' -o marker.stl     hub.scad   // one per train marker
// part="all" shows the whole hub, exploded, for a look in the OpenSCAD window.
//
// The top carries, per slot (slot 1 at 12 o'clock, then clockwise as seen from above):
// a domino slot open to the rim, a marker seat with the hall sensor's pocket under a
// 1 mm skin, and a button (12 mm tactile switch from below, its cap through the top).
// In the middle: the centre button inside the LED ring's channel (0.6 mm of plastic
// over the ring diffuses its light). The base carries the Pi Zero 2 W and the Pico on
// their posts and the speaker over a grille; four stick-on feet let the sound out.
// Cable exits: two notches in the top's rim (power, USB).

part = "all";          // "top", "base", "marker" or "all"
slots = 8;             // train slots around the rim
domino_set = 12;       // 12, 15 or 18: the largest double of the set

// Domino sizes (length, width, thickness in mm) of common sets.
function domino(s) =
    s == 12 ? [44.5, 22.5, 9.5] :
    s == 15 ? [48, 24, 10] :
    s == 18 ? [52, 26, 10] :
    assert(false, str("domino_set must be 12, 15 or 18, not ", s));

dom = domino(domino_set);
clearance = 0.6;                 // on each side of a domino in its slot
slot_w = dom[1] + 2 * clearance; // slot width across
slot_l = dom[0] / 2 + clearance; // the slot holds half the domino; the rest lies outside
slot_depth = 3;                  // how deep a domino sits in its slot

diameter = 200;                  // the hub's outside diameter (a 220 mm bed takes it)
R = diameter / 2;
height = 42;                     // top and base together
plate = 6;                       // the top plate's thickness
wall = 2.4;
skin = 1.0;                      // over the hall sensors
diffuser = 0.6;                  // over the LED ring

marker_d = 14;                   // a train marker's foot
marker_seat_depth = 1.5;
magnet = [6, 3];                 // disc magnet: diameter, thickness
sensor = [4.6, 3.6, 4];          // TO-92 flat hall switch pocket (x, y, depth)
button_hole = 11;                // for the 12 mm switch's round cap
switch_body = 12.6;              // the 12 x 12 mm tactile switch, from below
switch_lip = 1.6;                // plastic left over the switch body
ring_r = [25.5, 34];             // the 24-pixel ring's channel: inner, outer radius
ring_h = 4;                      // the ring's thickness with its wires

slot_r = R - slot_l;             // radius of the slot's inner end
marker_r = slot_r - 4 - marker_d / 2;
button_r = marker_r - marker_d / 2 - 4 - switch_body / 2;
screw_r = R - wall - 7;          // base-to-top screws (M3, heat-set inserts in the top)
base_t = 3;                      // the base plate

$fn = 40;
eps = 0.01;

assert(button_r - switch_body / 2 > ring_r[1] + 2, "the slots leave no room for the buttons: make the hub bigger");
assert(2 * PI * button_r / slots > switch_body + 4, "too many slots for the buttons at this size");
assert(2 * PI * slot_r / slots > slot_w + 4, "too many slots for this domino size at this diameter");

// Where slot n (1-based) points, in degrees counter-clockwise from +x: slot 1 at 12
// o'clock, the next ones clockwise as seen from above.
function slot_angle(n) = 90 - (n - 1) * 360 / slots;

module at_slot(n, r) { rotate([0, 0, slot_angle(n)]) translate([r, 0, 0]) children(); }
module screw_spots() { for (a = [45, 135, 225, 315]) rotate([0, 0, a + 180 / slots]) translate([screw_r, 0, 0]) children(); }

// The print says what each slot is for: report it for the tests and the curious.
for (n = [1 : slots])
    echo(str("slot ", n, " angle=", slot_angle(n), " inner_r=", slot_r, " width=", slot_w,
             " length=", slot_l, " depth=", slot_depth, " floor_z=", height - slot_depth));
echo(str("domino set=", domino_set, " length=", dom[0], " width=", dom[1], " thickness=", dom[2]));

module slot_cut(n) {
    at_slot(n, slot_r) translate([0, -slot_w / 2, height - slot_depth]) cube([slot_l + 1, slot_w, slot_depth + 1]);
}

module marker_cut(n) {
    at_slot(n, marker_r) {
        translate([0, 0, height - marker_seat_depth]) cylinder(d = marker_d + 1, h = marker_seat_depth + 1);
        translate([-sensor[0] / 2, -sensor[1] / 2, height - plate - 1])
            cube([sensor[0], sensor[1], plate + 1 - marker_seat_depth - skin]);
    }
}

module button_cut(p) {
    translate(p) {
        translate([0, 0, height - plate - 1]) cylinder(d = button_hole, h = plate + 2);
        translate([-switch_body / 2, -switch_body / 2, height - plate - 1]) cube([switch_body, switch_body, plate + 1 - switch_lip]);
    }
}

module top() {
    difference() {
        union() {
            difference() {
                cylinder(r = R, h = height, $fn = 120);
                translate([0, 0, -1]) cylinder(r = R - wall, h = height - plate + 1, $fn = 120);
            }
            screw_spots() cylinder(d = 9, h = height - eps);
        }
        screw_spots() translate([0, 0, -1]) cylinder(d = 4.0, h = 9);            // M3 insert
        for (n = [1 : slots]) { slot_cut(n); marker_cut(n); button_cut([0, 0, 0] + [cos(slot_angle(n)), sin(slot_angle(n)), 0] * button_r); }
        button_cut([0, 0, 0]);                                                    // the centre button
        translate([0, 0, height - plate - 1]) difference() {                     // the ring's channel
            cylinder(r = ring_r[1], h = plate + 1 - diffuser, $fn = 96);
            translate([0, 0, -1]) cylinder(r = ring_r[0], h = plate + 3, $fn = 96);
        }
        for (a = [slot_angle(1) + 180 / slots, slot_angle(1) + 180 / slots + 180])   // cable exits
            rotate([0, 0, a]) translate([R - wall - 1, -7, -1]) cube([wall + 2, 14, 9]);
    }
}

base_r = R - wall - 0.4;
pi_holes = [58, 23];     // Pi Zero 2 W mounting holes, centre to centre
pico_holes = [47, 11.4]; // Pico
speaker_d = 40;

module posts(spacing, d, h, hole) {
    for (x = [-1, 1], y = [-1, 1]) translate([x * spacing[0] / 2, y * spacing[1] / 2, 0])
        difference() {
            cylinder(d = d, h = h);
            translate([0, 0, 1]) cylinder(d = hole, h = h);
        }
}

module base() {
    difference() {
        union() {
            cylinder(r = base_r, h = base_t, $fn = 120);
            translate([0, -45, base_t - eps]) posts(pi_holes, 6.5, 6, 3.6);       // Pi Zero 2 W
            translate([0, 52, base_t - eps]) posts(pico_holes, 5.5, 5, 1.8);      // Pico
            difference() {                                                         // speaker seat
                cylinder(d = speaker_d + 4, h = base_t + 3);
                translate([0, 0, base_t - eps]) cylinder(d = speaker_d + 0.6, h = 4);
            }
        }
        for (x = [-3 : 3], y = [-3 : 3]) if (x * x + y * y <= 10)               // speaker grille
            translate([x * 5, y * 5, -1]) cylinder(d = 3, h = base_t + 2, $fn = 16);
        screw_spots() {                                                            // M3, countersunk below
            translate([0, 0, -1]) cylinder(d = 3.4, h = base_t + 2);
            translate([0, 0, -eps]) cylinder(d1 = 6.6, d2 = 3.4, h = 1.7);
        }
    }
}

module marker() {
    difference() {
        union() {
            cylinder(d = marker_d - 0.4, h = 3);                                  // foot, fits the seat
            cylinder(d = 9, h = 14);                                               // a stack to pick up
            translate([0, 0, 14]) sphere(d = 9);
        }
        translate([0, 0, -1]) cylinder(d = magnet[0] + 0.2, h = magnet[1] + 1.2); // magnet seat
    }
}

if (part == "top") top();
else if (part == "base") base();
else if (part == "marker") marker();
else if (part == "all") {
    top();
    translate([0, 0, -30]) base();
    translate([0, 0, height + 20]) at_slot(1, marker_r) marker();
}
else assert(false, str("part must be top, base, marker or all, not ", part));
