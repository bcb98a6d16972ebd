// Woodward & Colella (1984), the Mach 3 wind tunnel with a step: the channel
// [0, 3] x [0, 1] less the step [0.6, 3] x [0, 0.2].  Boundary tags:
// "inflow" (x = 0), "outflow" (x = 3, above the step), "wall" (the floor,
// the step's face and top, the ceiling).  dgrun meshes it at start with the
// size from problem.cfg ([mesh] size: Mesh.MeshSizeMax); `lc` is only the
// default.  The mesh is uniform, the corner of the step (0.6, 0.2), the
// flow's singular point, included: Woodward & Colella treat the corner
// specially; here the artificial viscosity and the positivity limiter alone
// carry the run through it (a refined corner would shrink the global time
// step for no gain in the picture).
lc = 0.1;
Point(1) = {0, 0, 0, lc};
Point(2) = {0.6, 0, 0, lc};
Point(3) = {0.6, 0.2, 0, lc};
Point(4) = {3, 0.2, 0, lc};
Point(5) = {3, 1, 0, lc};
Point(6) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Curve Loop(1) = {1, 2, 3, 4, 5, 6};
Plane Surface(1) = {1};
Physical Curve("inflow") = {6};
Physical Curve("outflow") = {4};
Physical Curve("wall") = {1, 2, 3, 5};
Physical Surface("fluid") = {1};
