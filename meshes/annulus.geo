// 2D sample with curved boundaries (issue 40): the annulus 1 <= r <= 2.
// Boundary tags "inner" (r = 1) and "outer" (r = 2), region "domain".
// Mesh it curved with [mesh] geometry_order = k (Gmsh's Mesh.ElementOrder;
// dgrun adds Mesh.HighOrderOptimize = 2): the high-order nodes of the
// boundary elements lie on the circles.  `lc` is the default element size
// ([mesh] size overrides it).
lc = 0.5;
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {0, 1, 0, lc};
Point(4) = {-1, 0, 0, lc};
Point(5) = {0, -1, 0, lc};
Point(6) = {2, 0, 0, lc};
Point(7) = {0, 2, 0, lc};
Point(8) = {-2, 0, 0, lc};
Point(9) = {0, -2, 0, lc};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 4};
Circle(3) = {4, 1, 5};
Circle(4) = {5, 1, 2};
Circle(5) = {6, 1, 7};
Circle(6) = {7, 1, 8};
Circle(7) = {8, 1, 9};
Circle(8) = {9, 1, 6};
Curve Loop(1) = {5, 6, 7, 8};
Curve Loop(2) = {1, 2, 3, 4};
Plane Surface(1) = {1, 2};
Physical Curve("inner") = {1, 2, 3, 4};
Physical Curve("outer") = {5, 6, 7, 8};
Physical Surface("domain") = {1};
