// 2D sample: the unit square, periodic in x and y (Gmsh periodic curves:
// right is a copy of left shifted by (1, 0), top a copy of bottom shifted by
// (0, 1)).  No boundary tags are needed: every side is paired.  `lc` is the
// size of the shipped periodic_square.msh (gmsh -2 periodic_square.geo -format msh41).
lc = 0.25;
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {4, 3};
Line(4) = {1, 4};
Curve Loop(1) = {1, 2, -3, -4};
Plane Surface(1) = {1};
Periodic Curve {2} = {4} Translate {1, 0, 0};
Periodic Curve {3} = {1} Translate {0, 1, 0};
Physical Surface("domain") = {1};
