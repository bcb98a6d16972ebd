// 3D sample with element regions: the box [-1,1] x [0,1] x [0,1] cut at
// x = 0 into Physical Volume "left" (x < 0) and "right" (x > 0), meshed
// conformingly across the cut (one fragmented shape); boundary "wall".
SetFactory("OpenCASCADE");
Box(1) = {-1, 0, 0, 1, 1, 1};
Box(2) = {0, 0, 0, 1, 1, 1};
v() = BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; };
Mesh.MeshSizeMax = 0.6;
Physical Volume("left") = {v(0)};
Physical Volume("right") = {v(1)};
Physical Surface("wall") = CombinedBoundary{ Volume{v()}; };
