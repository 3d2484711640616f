module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %c255 = arith.constant 255 : index
    %c254 = arith.constant 254 : index
    %c253 = arith.constant 253 : index
    %cst = arith.constant dense<0.000000e+00> : vector<16xf32>
    %0 = ub.poison : f32
    %cst_0 = arith.constant dense<0.000000e+00> : vector<4x16xf32>
    %cst_1 = arith.constant dense<0.000000e+00> : vector<6x16xf32>
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c252 = arith.constant 252 : index
    %c16 = arith.constant 16 : index
    %c6 = arith.constant 6 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    cf.br ^bb1(%c0 : index)
  ^bb1(%1: index):  // 2 preds: ^bb0, ^bb5
    %2 = arith.cmpi slt, %1, %c252 : index
    cf.cond_br %2, ^bb2, ^bb6
  ^bb2:  // pred: ^bb1
    cf.br ^bb3(%c0 : index)
  ^bb3(%3: index):  // 2 preds: ^bb2, ^bb4
    %4 = arith.cmpi slt, %3, %c256 : index
    cf.cond_br %4, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    vector.transfer_write %cst, %alloc_2[%1, %3] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %c1_3 = arith.constant 1 : index
    %5 = arith.addi %1, %c1_3 : index
    vector.transfer_write %cst, %alloc_2[%5, %3] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %c2 = arith.constant 2 : index
    %6 = arith.addi %1, %c2 : index
    vector.transfer_write %cst, %alloc_2[%6, %3] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %c3 = arith.constant 3 : index
    %7 = arith.addi %1, %c3 : index
    vector.transfer_write %cst, %alloc_2[%7, %3] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %c4 = arith.constant 4 : index
    %8 = arith.addi %1, %c4 : index
    vector.transfer_write %cst, %alloc_2[%8, %3] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %c5 = arith.constant 5 : index
    %9 = arith.addi %1, %c5 : index
    vector.transfer_write %cst, %alloc_2[%9, %3] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %10 = arith.addi %3, %c16 : index
    cf.br ^bb3(%10 : index)
  ^bb5:  // pred: ^bb3
    %11 = arith.addi %1, %c6 : index
    cf.br ^bb1(%11 : index)
  ^bb6:  // pred: ^bb1
    cf.br ^bb7(%c0 : index)
  ^bb7(%12: index):  // 2 preds: ^bb6, ^bb8
    %13 = arith.cmpi slt, %12, %c256 : index
    cf.cond_br %13, ^bb8, ^bb9
  ^bb8:  // pred: ^bb7
    vector.transfer_write %cst, %alloc_2[%c252, %12] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    vector.transfer_write %cst, %alloc_2[%c253, %12] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    vector.transfer_write %cst, %alloc_2[%c254, %12] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    vector.transfer_write %cst, %alloc_2[%c255, %12] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %14 = arith.addi %12, %c16 : index
    cf.br ^bb7(%14 : index)
  ^bb9:  // pred: ^bb7
    %c0_4 = arith.constant 0 : index
    %c4_5 = arith.constant 4 : index
    %c1_6 = arith.constant 1 : index
    cf.br ^bb10(%c0_4 : index)
  ^bb10(%15: index):  // 2 preds: ^bb9, ^bb26
    %16 = arith.cmpi slt, %15, %c4_5 : index
    cf.cond_br %16, ^bb11, ^bb27
  ^bb11:  // pred: ^bb10
    %c64_7 = arith.constant 64 : index
    %17 = arith.muli %15, %c64_7 overflow<nsw> : index
    %subview = memref.subview %alloc_2[0, %17] [256, 64] [1, 1] : memref<256x256xf32> to memref<256x64xf32, strided<[256, 1], offset: ?>>
    cf.br ^bb12(%c0 : index)
  ^bb12(%18: index):  // 2 preds: ^bb11, ^bb19
    %19 = arith.cmpi slt, %18, %c252 : index
    cf.cond_br %19, ^bb13, ^bb20
  ^bb13:  // pred: ^bb12
    cf.br ^bb14(%c0 : index)
  ^bb14(%20: index):  // 2 preds: ^bb13, ^bb18
    %21 = arith.cmpi slt, %20, %c64 : index
    cf.cond_br %21, ^bb15, ^bb19
  ^bb15:  // pred: ^bb14
    %22 = vector.transfer_read %subview[%18, %20], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %c1_8 = arith.constant 1 : index
    %23 = arith.addi %18, %c1_8 : index
    %24 = vector.transfer_read %subview[%23, %20], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %c2_9 = arith.constant 2 : index
    %25 = arith.addi %18, %c2_9 : index
    %26 = vector.transfer_read %subview[%25, %20], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %c3_10 = arith.constant 3 : index
    %27 = arith.addi %18, %c3_10 : index
    %28 = vector.transfer_read %subview[%27, %20], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %c4_11 = arith.constant 4 : index
    %29 = arith.addi %18, %c4_11 : index
    %30 = vector.transfer_read %subview[%29, %20], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %c5_12 = arith.constant 5 : index
    %31 = arith.addi %18, %c5_12 : index
    %32 = vector.transfer_read %subview[%31, %20], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %33:16 = vector.to_elements %22 : vector<16xf32>
    %34:16 = vector.to_elements %24 : vector<16xf32>
    %35:16 = vector.to_elements %26 : vector<16xf32>
    %36:16 = vector.to_elements %28 : vector<16xf32>
    %37:16 = vector.to_elements %30 : vector<16xf32>
    %38:16 = vector.to_elements %32 : vector<16xf32>
    %39 = vector.from_elements %33#0, %33#1, %33#2, %33#3, %33#4, %33#5, %33#6, %33#7, %33#8, %33#9, %33#10, %33#11, %33#12, %33#13, %33#14, %33#15, %34#0, %34#1, %34#2, %34#3, %34#4, %34#5, %34#6, %34#7, %34#8, %34#9, %34#10, %34#11, %34#12, %34#13, %34#14, %34#15, %35#0, %35#1, %35#2, %35#3, %35#4, %35#5, %35#6, %35#7, %35#8, %35#9, %35#10, %35#11, %35#12, %35#13, %35#14, %35#15, %36#0, %36#1, %36#2, %36#3, %36#4, %36#5, %36#6, %36#7, %36#8, %36#9, %36#10, %36#11, %36#12, %36#13, %36#14, %36#15, %37#0, %37#1, %37#2, %37#3, %37#4, %37#5, %37#6, %37#7, %37#8, %37#9, %37#10, %37#11, %37#12, %37#13, %37#14, %37#15, %38#0, %38#1, %38#2, %38#3, %38#4, %38#5, %38#6, %38#7, %38#8, %38#9, %38#10, %38#11, %38#12, %38#13, %38#14, %38#15 : vector<6x16xf32>
    cf.br ^bb16(%c0, %39 : index, vector<6x16xf32>)
  ^bb16(%40: index, %41: vector<6x16xf32>):  // 2 preds: ^bb15, ^bb17
    %42 = arith.cmpi slt, %40, %c256 : index
    cf.cond_br %42, ^bb17, ^bb18
  ^bb17:  // pred: ^bb16
    %43 = vector.transfer_read %arg0[%18, %40], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %44 = vector.transfer_read %arg0[%23, %40], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %45 = vector.transfer_read %arg0[%25, %40], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %46 = vector.transfer_read %arg0[%27, %40], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %47 = vector.transfer_read %arg0[%29, %40], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %48 = vector.transfer_read %arg0[%31, %40], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %c64_13 = arith.constant 64 : index
    %49 = arith.muli %15, %c64_13 overflow<nsw> : index
    %50 = arith.addi %49, %20 : index
    %51 = vector.transfer_read %arg1[%40, %50], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %52 = vector.extract %43[0] : f32 from vector<1xf32>
    %53 = vector.broadcast %52 : f32 to vector<16xf32>
    %54 = vector.extract %41[0] : vector<16xf32> from vector<6x16xf32>
    %55 = vector.fma %53, %51, %54 : vector<16xf32>
    %56 = vector.extract %44[0] : f32 from vector<1xf32>
    %57 = vector.broadcast %56 : f32 to vector<16xf32>
    %58 = vector.extract %41[1] : vector<16xf32> from vector<6x16xf32>
    %59 = vector.fma %57, %51, %58 : vector<16xf32>
    %60 = vector.extract %45[0] : f32 from vector<1xf32>
    %61 = vector.broadcast %60 : f32 to vector<16xf32>
    %62 = vector.extract %41[2] : vector<16xf32> from vector<6x16xf32>
    %63 = vector.fma %61, %51, %62 : vector<16xf32>
    %64 = vector.extract %46[0] : f32 from vector<1xf32>
    %65 = vector.broadcast %64 : f32 to vector<16xf32>
    %66 = vector.extract %41[3] : vector<16xf32> from vector<6x16xf32>
    %67 = vector.fma %65, %51, %66 : vector<16xf32>
    %68 = vector.extract %47[0] : f32 from vector<1xf32>
    %69 = vector.broadcast %68 : f32 to vector<16xf32>
    %70 = vector.extract %41[4] : vector<16xf32> from vector<6x16xf32>
    %71 = vector.fma %69, %51, %70 : vector<16xf32>
    %72 = vector.extract %48[0] : f32 from vector<1xf32>
    %73 = vector.broadcast %72 : f32 to vector<16xf32>
    %74 = vector.extract %41[5] : vector<16xf32> from vector<6x16xf32>
    %75 = vector.fma %73, %51, %74 : vector<16xf32>
    %76:16 = vector.to_elements %55 : vector<16xf32>
    %77:16 = vector.to_elements %59 : vector<16xf32>
    %78:16 = vector.to_elements %63 : vector<16xf32>
    %79:16 = vector.to_elements %67 : vector<16xf32>
    %80:16 = vector.to_elements %71 : vector<16xf32>
    %81:16 = vector.to_elements %75 : vector<16xf32>
    %82 = vector.from_elements %76#0, %76#1, %76#2, %76#3, %76#4, %76#5, %76#6, %76#7, %76#8, %76#9, %76#10, %76#11, %76#12, %76#13, %76#14, %76#15, %77#0, %77#1, %77#2, %77#3, %77#4, %77#5, %77#6, %77#7, %77#8, %77#9, %77#10, %77#11, %77#12, %77#13, %77#14, %77#15, %78#0, %78#1, %78#2, %78#3, %78#4, %78#5, %78#6, %78#7, %78#8, %78#9, %78#10, %78#11, %78#12, %78#13, %78#14, %78#15, %79#0, %79#1, %79#2, %79#3, %79#4, %79#5, %79#6, %79#7, %79#8, %79#9, %79#10, %79#11, %79#12, %79#13, %79#14, %79#15, %80#0, %80#1, %80#2, %80#3, %80#4, %80#5, %80#6, %80#7, %80#8, %80#9, %80#10, %80#11, %80#12, %80#13, %80#14, %80#15, %81#0, %81#1, %81#2, %81#3, %81#4, %81#5, %81#6, %81#7, %81#8, %81#9, %81#10, %81#11, %81#12, %81#13, %81#14, %81#15 : vector<6x16xf32>
    %83 = arith.addi %40, %c1 : index
    cf.br ^bb16(%83, %82 : index, vector<6x16xf32>)
  ^bb18:  // pred: ^bb16
    %84 = vector.extract %41[0] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %84, %subview[%18, %20] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %85 = vector.extract %41[1] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %85, %subview[%23, %20] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %86 = vector.extract %41[2] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %86, %subview[%25, %20] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %87 = vector.extract %41[3] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %87, %subview[%27, %20] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %88 = vector.extract %41[4] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %88, %subview[%29, %20] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %89 = vector.extract %41[5] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %89, %subview[%31, %20] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %90 = arith.addi %20, %c16 : index
    cf.br ^bb14(%90 : index)
  ^bb19:  // pred: ^bb14
    %91 = arith.addi %18, %c6 : index
    cf.br ^bb12(%91 : index)
  ^bb20:  // pred: ^bb12
    cf.br ^bb21(%c0 : index)
  ^bb21(%92: index):  // 2 preds: ^bb20, ^bb25
    %93 = arith.cmpi slt, %92, %c64 : index
    cf.cond_br %93, ^bb22, ^bb26
  ^bb22:  // pred: ^bb21
    %94 = vector.transfer_read %subview[%c252, %92], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %95 = vector.transfer_read %subview[%c253, %92], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %96 = vector.transfer_read %subview[%c254, %92], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %97 = vector.transfer_read %subview[%c255, %92], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
    %98:16 = vector.to_elements %94 : vector<16xf32>
    %99:16 = vector.to_elements %95 : vector<16xf32>
    %100:16 = vector.to_elements %96 : vector<16xf32>
    %101:16 = vector.to_elements %97 : vector<16xf32>
    %102 = vector.from_elements %98#0, %98#1, %98#2, %98#3, %98#4, %98#5, %98#6, %98#7, %98#8, %98#9, %98#10, %98#11, %98#12, %98#13, %98#14, %98#15, %99#0, %99#1, %99#2, %99#3, %99#4, %99#5, %99#6, %99#7, %99#8, %99#9, %99#10, %99#11, %99#12, %99#13, %99#14, %99#15, %100#0, %100#1, %100#2, %100#3, %100#4, %100#5, %100#6, %100#7, %100#8, %100#9, %100#10, %100#11, %100#12, %100#13, %100#14, %100#15, %101#0, %101#1, %101#2, %101#3, %101#4, %101#5, %101#6, %101#7, %101#8, %101#9, %101#10, %101#11, %101#12, %101#13, %101#14, %101#15 : vector<4x16xf32>
    cf.br ^bb23(%c0, %102 : index, vector<4x16xf32>)
  ^bb23(%103: index, %104: vector<4x16xf32>):  // 2 preds: ^bb22, ^bb24
    %105 = arith.cmpi slt, %103, %c256 : index
    cf.cond_br %105, ^bb24, ^bb25
  ^bb24:  // pred: ^bb23
    %106 = vector.transfer_read %arg0[%c252, %103], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %107 = vector.transfer_read %arg0[%c253, %103], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %108 = vector.transfer_read %arg0[%c254, %103], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %109 = vector.transfer_read %arg0[%c255, %103], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %c64_14 = arith.constant 64 : index
    %110 = arith.muli %15, %c64_14 overflow<nsw> : index
    %111 = arith.addi %110, %92 : index
    %112 = vector.transfer_read %arg1[%103, %111], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %113 = vector.extract %106[0] : f32 from vector<1xf32>
    %114 = vector.broadcast %113 : f32 to vector<16xf32>
    %115 = vector.extract %104[0] : vector<16xf32> from vector<4x16xf32>
    %116 = vector.fma %114, %112, %115 : vector<16xf32>
    %117 = vector.extract %107[0] : f32 from vector<1xf32>
    %118 = vector.broadcast %117 : f32 to vector<16xf32>
    %119 = vector.extract %104[1] : vector<16xf32> from vector<4x16xf32>
    %120 = vector.fma %118, %112, %119 : vector<16xf32>
    %121 = vector.extract %108[0] : f32 from vector<1xf32>
    %122 = vector.broadcast %121 : f32 to vector<16xf32>
    %123 = vector.extract %104[2] : vector<16xf32> from vector<4x16xf32>
    %124 = vector.fma %122, %112, %123 : vector<16xf32>
    %125 = vector.extract %109[0] : f32 from vector<1xf32>
    %126 = vector.broadcast %125 : f32 to vector<16xf32>
    %127 = vector.extract %104[3] : vector<16xf32> from vector<4x16xf32>
    %128 = vector.fma %126, %112, %127 : vector<16xf32>
    %129:16 = vector.to_elements %116 : vector<16xf32>
    %130:16 = vector.to_elements %120 : vector<16xf32>
    %131:16 = vector.to_elements %124 : vector<16xf32>
    %132:16 = vector.to_elements %128 : vector<16xf32>
    %133 = vector.from_elements %129#0, %129#1, %129#2, %129#3, %129#4, %129#5, %129#6, %129#7, %129#8, %129#9, %129#10, %129#11, %129#12, %129#13, %129#14, %129#15, %130#0, %130#1, %130#2, %130#3, %130#4, %130#5, %130#6, %130#7, %130#8, %130#9, %130#10, %130#11, %130#12, %130#13, %130#14, %130#15, %131#0, %131#1, %131#2, %131#3, %131#4, %131#5, %131#6, %131#7, %131#8, %131#9, %131#10, %131#11, %131#12, %131#13, %131#14, %131#15, %132#0, %132#1, %132#2, %132#3, %132#4, %132#5, %132#6, %132#7, %132#8, %132#9, %132#10, %132#11, %132#12, %132#13, %132#14, %132#15 : vector<4x16xf32>
    %134 = arith.addi %103, %c1 : index
    cf.br ^bb23(%134, %133 : index, vector<4x16xf32>)
  ^bb25:  // pred: ^bb23
    %135 = vector.extract %104[0] : vector<16xf32> from vector<4x16xf32>
    vector.transfer_write %135, %subview[%c252, %92] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %136 = vector.extract %104[1] : vector<16xf32> from vector<4x16xf32>
    vector.transfer_write %136, %subview[%c253, %92] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %137 = vector.extract %104[2] : vector<16xf32> from vector<4x16xf32>
    vector.transfer_write %137, %subview[%c254, %92] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %138 = vector.extract %104[3] : vector<16xf32> from vector<4x16xf32>
    vector.transfer_write %138, %subview[%c255, %92] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
    %139 = arith.addi %92, %c16 : index
    cf.br ^bb21(%139 : index)
  ^bb26:  // pred: ^bb21
    %140 = arith.addi %15, %c1_6 : index
    cf.br ^bb10(%140 : index)
  ^bb27:  // pred: ^bb10
    cf.br ^bb28(%c0 : index)
  ^bb28(%141: index):  // 2 preds: ^bb27, ^bb32
    %142 = arith.cmpi slt, %141, %c252 : index
    cf.cond_br %142, ^bb29, ^bb33
  ^bb29:  // pred: ^bb28
    cf.br ^bb30(%c0 : index)
  ^bb30(%143: index):  // 2 preds: ^bb29, ^bb31
    %144 = arith.cmpi slt, %143, %c256 : index
    cf.cond_br %144, ^bb31, ^bb32
  ^bb31:  // pred: ^bb30
    %145 = vector.transfer_read %alloc_2[%141, %143], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %c1_15 = arith.constant 1 : index
    %146 = arith.addi %141, %c1_15 : index
    %147 = vector.transfer_read %alloc_2[%146, %143], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %c2_16 = arith.constant 2 : index
    %148 = arith.addi %141, %c2_16 : index
    %149 = vector.transfer_read %alloc_2[%148, %143], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %c3_17 = arith.constant 3 : index
    %150 = arith.addi %141, %c3_17 : index
    %151 = vector.transfer_read %alloc_2[%150, %143], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %c4_18 = arith.constant 4 : index
    %152 = arith.addi %141, %c4_18 : index
    %153 = vector.transfer_read %alloc_2[%152, %143], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %c5_19 = arith.constant 5 : index
    %154 = arith.addi %141, %c5_19 : index
    %155 = vector.transfer_read %alloc_2[%154, %143], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %156:16 = vector.to_elements %145 : vector<16xf32>
    %157:16 = vector.to_elements %147 : vector<16xf32>
    %158:16 = vector.to_elements %149 : vector<16xf32>
    %159:16 = vector.to_elements %151 : vector<16xf32>
    %160:16 = vector.to_elements %153 : vector<16xf32>
    %161:16 = vector.to_elements %155 : vector<16xf32>
    %162 = vector.from_elements %156#0, %156#1, %156#2, %156#3, %156#4, %156#5, %156#6, %156#7, %156#8, %156#9, %156#10, %156#11, %156#12, %156#13, %156#14, %156#15, %157#0, %157#1, %157#2, %157#3, %157#4, %157#5, %157#6, %157#7, %157#8, %157#9, %157#10, %157#11, %157#12, %157#13, %157#14, %157#15, %158#0, %158#1, %158#2, %158#3, %158#4, %158#5, %158#6, %158#7, %158#8, %158#9, %158#10, %158#11, %158#12, %158#13, %158#14, %158#15, %159#0, %159#1, %159#2, %159#3, %159#4, %159#5, %159#6, %159#7, %159#8, %159#9, %159#10, %159#11, %159#12, %159#13, %159#14, %159#15, %160#0, %160#1, %160#2, %160#3, %160#4, %160#5, %160#6, %160#7, %160#8, %160#9, %160#10, %160#11, %160#12, %160#13, %160#14, %160#15, %161#0, %161#1, %161#2, %161#3, %161#4, %161#5, %161#6, %161#7, %161#8, %161#9, %161#10, %161#11, %161#12, %161#13, %161#14, %161#15 : vector<6x16xf32>
    %163 = vector.transfer_read %arg2[%143], %0 {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
    %164 = vector.broadcast %163 : vector<16xf32> to vector<6x16xf32>
    %165 = arith.addf %162, %164 : vector<6x16xf32>
    %166 = arith.maximumf %165, %cst_1 : vector<6x16xf32>
    %167 = vector.extract %166[0] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %167, %alloc[%141, %143] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %168 = vector.extract %166[1] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %168, %alloc[%146, %143] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %169 = vector.extract %166[2] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %169, %alloc[%148, %143] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %170 = vector.extract %166[3] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %170, %alloc[%150, %143] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %171 = vector.extract %166[4] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %171, %alloc[%152, %143] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %172 = vector.extract %166[5] : vector<16xf32> from vector<6x16xf32>
    vector.transfer_write %172, %alloc[%154, %143] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %173 = arith.addi %143, %c16 : index
    cf.br ^bb30(%173 : index)
  ^bb32:  // pred: ^bb30
    %174 = arith.addi %141, %c6 : index
    cf.br ^bb28(%174 : index)
  ^bb33:  // pred: ^bb28
    cf.br ^bb34(%c0 : index)
  ^bb34(%175: index):  // 2 preds: ^bb33, ^bb35
    %176 = arith.cmpi slt, %175, %c256 : index
    cf.cond_br %176, ^bb35, ^bb36
  ^bb35:  // pred: ^bb34
    %177 = vector.transfer_read %alloc_2[%c252, %175], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %178 = vector.transfer_read %alloc_2[%c253, %175], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %179 = vector.transfer_read %alloc_2[%c254, %175], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %180 = vector.transfer_read %alloc_2[%c255, %175], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
    %181:16 = vector.to_elements %177 : vector<16xf32>
    %182:16 = vector.to_elements %178 : vector<16xf32>
    %183:16 = vector.to_elements %179 : vector<16xf32>
    %184:16 = vector.to_elements %180 : vector<16xf32>
    %185 = vector.from_elements %181#0, %181#1, %181#2, %181#3, %181#4, %181#5, %181#6, %181#7, %181#8, %181#9, %181#10, %181#11, %181#12, %181#13, %181#14, %181#15, %182#0, %182#1, %182#2, %182#3, %182#4, %182#5, %182#6, %182#7, %182#8, %182#9, %182#10, %182#11, %182#12, %182#13, %182#14, %182#15, %183#0, %183#1, %183#2, %183#3, %183#4, %183#5, %183#6, %183#7, %183#8, %183#9, %183#10, %183#11, %183#12, %183#13, %183#14, %183#15, %184#0, %184#1, %184#2, %184#3, %184#4, %184#5, %184#6, %184#7, %184#8, %184#9, %184#10, %184#11, %184#12, %184#13, %184#14, %184#15 : vector<4x16xf32>
    %186 = vector.transfer_read %arg2[%175], %0 {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
    %187 = vector.broadcast %186 : vector<16xf32> to vector<4x16xf32>
    %188 = arith.addf %185, %187 : vector<4x16xf32>
    %189 = arith.maximumf %188, %cst_0 : vector<4x16xf32>
    %190 = vector.extract %189[0] : vector<16xf32> from vector<4x16xf32>
    vector.transfer_write %190, %alloc[%c252, %175] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %191 = vector.extract %189[1] : vector<16xf32> from vector<4x16xf32>
    vector.transfer_write %191, %alloc[%c253, %175] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %192 = vector.extract %189[2] : vector<16xf32> from vector<4x16xf32>
    vector.transfer_write %192, %alloc[%c254, %175] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %193 = vector.extract %189[3] : vector<16xf32> from vector<4x16xf32>
    vector.transfer_write %193, %alloc[%c255, %175] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    %194 = arith.addi %175, %c16 : index
    cf.br ^bb34(%194 : index)
  ^bb36:  // pred: ^bb34
    memref.copy %alloc, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<256x256xf32>
    memref.dealloc %alloc_2 : memref<256x256xf32>
    return
  }
}
