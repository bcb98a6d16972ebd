// 2D sample: the square [-1,1]^2 with a circular hole of radius 0.25 at the
// origin.  Boundary tags: "inflow" (x = -1), "outflow" (x = 1), "wall"
// (y = -1 and y = 1) and "hole" (the circle).  dgrun meshes it at start with
// the mesh size from problem.cfg (Mesh.MeshSizeMax); `lc` below is the size
// used for the shipped square_hole.msh (gmsh -2 square_hole.geo -format msh41).
lc = 0.5;
r = 0.25;
Point(1) = {-1, -1, 0, lc};
Point(2) = { 1, -1, 0, lc};
Point(3) = { 1,  1, 0, lc};
Point(4) = {-1,  1, 0, lc};
Point(5) = { 0,  0, 0, lc};
Point(6) = { r,  0, 0, lc / 2};
Point(7) = { 0,  r, 0, lc / 2};
Point(8) = {-r,  0, 0, lc / 2};
Point(9) = { 0, -r, 0, lc / 2};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Circle(5) = {6, 5, 7};
Circle(6) = {7, 5, 8};
Circle(7) = {8, 5, 9};
Circle(8) = {9, 5, 6};
Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {5, 6, 7, 8};
Plane Surface(1) = {1, 2};
Physical Curve("inflow") = {4};
Physical Curve("outflow") = {2};
Physical Curve("wall") = {1, 3};
Physical Curve("hole") = {5, 6, 7, 8};
Physical Surface("fluid") = {1};
