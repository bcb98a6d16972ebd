// 3D sample: the box [0,1] x [0,2] x [0,0.5] with one tag per side pair:
// "inlet" (x = 0), "outlet" (x = 1), "walls" (y = 0, y = 2) and "floor",
// "lid" (z = 0, z = 0.5).  `lc` is the size of the shipped box.msh
// (gmsh -3 box.geo -format msh22); dgrun overrides it with the size from problem.cfg.
SetFactory("Built-in");
lc = 0.4;
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 2, 0, lc};
Point(4) = {0, 2, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
out[] = Extrude {0, 0, 0.5} { Surface{1}; };
// out[0] = top surface, out[1] = volume, out[2..5] = sides along lines 1..4.
Physical Surface("floor") = {1};
Physical Surface("lid") = {out[0]};
Physical Surface("walls") = {out[2], out[4]};
Physical Surface("outlet") = {out[3]};
Physical Surface("inlet") = {out[5]};
Physical Volume("solid") = {out[1]};
